"""Every offline check of kind folders, gathered into one sorted list of findings.

``stencil lint`` prints what ``lint`` returns, and ``stencil dev`` shows it above
its live view, so the gathering lives here rather than in either command: load
each kind folder, find its CRDs, admit its examples (and any extra CR files) as
the API server would, render them with the templates traced, then run the static
checks of ``engine.core.offline.linting`` over every template and status rule.

Each source of findings is one small function of the kind and what is known
about it (``_CHECKS``), so a new check is one more entry, not a new pass.
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core.decisions import conditions
from engine.core.decisions.plans import contention
from engine.core.model import apis, kinds
from engine.core.model.errors import KindError, StencilError
from engine.core.model.language import documents
from engine.core.offline import admission, fixtures, linting, preview, rbac
from engine.core.offline.linting import Finding, columns

# A CR that names no namespace is linted where `stencil render` would put it.
_NAMESPACE = "default"
KUBECTL_KEY = "kubectl-key"


def lint(
    kind_dirs: Sequence[Path],
    *,
    crds_dir: Path | None = None,
    files: Sequence[Path] = (),
    observed: Sequence[dict[str, Any]] = (),
) -> list[Finding]:
    """Every finding for the kind folders ``kind_dirs``, sorted by file, line and column.

    ``crds_dir`` overrides where each kind's CRDs are looked for (by default its own
    ``crds/``, else ``crds/`` beside the templates folder); ``files`` are CRs to
    check and render besides each kind's examples.  One parent of each way through
    the templates (the examples first) is also rendered with longer names, up to the
    longest its CRD allows, and what the first name too long for a child breaks (a
    child name or label made from the parent's name, by the child kind's own name
    rule) is a warning with the bound the CRD should set: the CRD accepts a parent
    whose children the API server would refuse.  The kinds' references read the
    objects of each kind's ``tests/fixtures.yaml`` (and an example's own), and
    ``observed``; every status rule is evaluated for every example rendered, and one
    that fails is an error at its line.
    """
    findings: list[Finding] = []
    loaded: list[kinds.Kind] = []
    for directory in kind_dirs:
        try:
            loaded.append(kinds.load_kind(directory))
        except KindError as error:
            findings.append(Finding.of_error(error, "kind", default_file=str(directory / kinds.KIND_FILE)))
    findings += _clashes(loaded)
    extra: list[documents.Document] = []
    for file in files:
        try:
            extra += documents.Document.read_all(file, StencilError)
        except StencilError as error:
            findings.append(Finding.of_error(error, "cr", default_file=str(file)))
    findings += _kubectl_keys(extra)
    # Kinds of one project share its crds/: each folder of CRDs is read (and checked) once.
    read = functools.cache(_read_crds)
    for kind in loaded:
        place, crds = _crds_of(kind, crds_dir, lambda directory: read(directory)[0])
        broken = read(place)[1] if place.is_dir() else ()
        if kind.crd is not None and not broken:
            crds, broken = _with_schema(kind, place)
        findings += [*broken, *_lint_kind(kind, (place, crds), extra, observed, crds_broken=bool(broken))]
    return sorted(set(findings), key=lambda finding: finding.sort_key)


def _read_crds(directory: Path) -> tuple[admission.OfflineCrds, tuple[Finding, ...]]:
    """The CRDs under ``directory``; one that breaks the CRD format is a finding, and then none is read,
    as ``stencil render`` would read none."""
    try:
        return admission.OfflineCrds.read(directory), ()
    except StencilError as error:
        return admission.OfflineCrds([]), (Finding.of_error(error, "crd", default_file=str(directory)),)


def _with_schema(kind: kinds.Kind, place: Path) -> tuple[admission.OfflineCrds, tuple[Finding, ...]]:
    """The CRDs of ``place`` and the one ``kind`` writes from its schema, or the finding that it has two."""
    try:
        return admission.OfflineCrds.read(place if place.is_dir() else None, [kind]), ()
    except StencilError as error:
        return admission.OfflineCrds([]), (Finding.of_error(error, "kind", default_file=str(kind.directory)),)


def _clashes(loaded: Iterable[kinds.Kind]) -> list[Finding]:
    """Two folders serving one parent: the engine would refuse both."""
    by_parent: dict[tuple[str, str], list[kinds.Kind]] = {}
    for kind in loaded:
        by_parent.setdefault((kind.api_version, kind.kind), []).append(kind)
    findings = []
    for (api_version, parent_kind), serving in by_parent.items():
        if len(serving) > 1:
            names = ", ".join(k.name for k in serving)
            message = f"parent: {parent_kind} ({api_version}) is served by more than one kind folder: {names}"
            findings += [
                Finding(str(k.directory / kinds.KIND_FILE), None, None, "error", message, "kind")
                for k in serving
            ]
    return findings


# -- one kind -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Known:
    """What the checks of one kind share: its CRD schema, the CRs rendered, what rendering gave."""

    kind: kinds.Kind
    crds: admission.OfflineCrds
    schema: dict[str, Any] | None
    traced: linting.Traced
    child_kinds: frozenset[str]
    crd_place: str
    crds_broken: bool  # the folder of CRDs did not read: its finding says why there is no schema
    child_findings: tuple[Finding, ...]  # what the API server would refuse in the examples' children
    worlds: Mapping[str, Sequence[dict[str, Any]]]  # what each parent's references read, by where


def _crds_of(
    kind: kinds.Kind, crds_dir: Path | None, read: Callable[[Path], admission.OfflineCrds]
) -> tuple[Path, admission.OfflineCrds]:
    """The folder of the kind's CRDs and what it holds: ``crds_dir`` if given, else the first of
    ``admission.crd_places`` that serves the parent (as ``admission.find_crds_dir`` picks), read once."""
    if crds_dir is not None:
        return crds_dir, read(crds_dir)
    places = [place for place in admission.crd_places(kind.directory) if place.is_dir()]
    for place in places:
        if (kind.api_version, kind.kind) in read(place).schemas:
            return place, read(place)
    place = places[0] if places else admission.crd_places(kind.directory)[-1]
    return place, read(place) if places else admission.OfflineCrds([])


def _lint_kind(
    kind: kinds.Kind,
    crds_of_kind: tuple[Path, admission.OfflineCrds],
    extra: Sequence[documents.Document],
    observed: Sequence[dict[str, Any]] = (),
    *,
    crds_broken: bool = False,
) -> list[Finding]:
    place, crds = crds_of_kind
    findings: list[Finding] = []
    parents: list[tuple[str, dict[str, Any]]] = []
    worlds: dict[str, list[dict[str, Any]]] = {}  # what each parent's references may read, by where
    for example in kind.examples:
        try:
            in_example = documents.Document.read_all(example, StencilError)
            given = [*fixtures.objects(kind, example), *observed]
        except StencilError as error:
            findings.append(Finding.of_error(error, "example", default_file=str(example)))
            continue
        findings += _kubectl_keys(in_example)
        found, problems = _admitted(crds, kind, in_example)
        parents += found
        worlds.update((where, given) for where, _ in found)
        findings += problems
    found, problems = _admitted(crds, kind, extra)
    parents += found
    findings += problems
    try:
        worlds.update((where, [*fixtures.objects(kind), *observed]) for where, _ in found)
    except StencilError as error:
        findings.append(Finding.of_error(error, "fixtures", default_file=str(kind.directory)))
    traced = linting.render_traced(
        kind, parents, is_namespaced=crds.is_namespaced, given=lambda where: worlds.get(where, ())
    )
    literal = {k for t in kind.sources for _, k in rbac.literal_child_kinds(t.text)}
    known = _Known(
        kind=kind,
        crds=crds,
        schema=crds.schemas.get((kind.api_version, kind.kind)),
        traced=traced,
        child_kinds=frozenset(literal | {str(child.get("kind")) for child in traced.children}),
        crd_place=str(place),
        crds_broken=crds_broken,
        child_findings=tuple(linting.check_children(traced.located, crds)),
        worlds=worlds,
    )
    for check in _CHECKS:
        findings += check(known, parents)
    # A template that cannot compile fails every render too; the static finding already says where.
    static = {(f.file, f.line) for f in findings if f.severity == "error"}
    findings += [f for f in traced.findings if (f.file, f.line) not in static]
    # What is wrong for every name (an error already said at its place) is not said again for the long
    # one, nor what the static checks said in a branch again by the render of a made-up parent.
    errors = {(f.file, f.line) for f in findings if f.severity == "error" and f.check != linting.LONG_NAME}
    static = {(f.file, f.line) for f in findings if f.severity == "error" and f.check != linting.UNTAKEN}
    return [
        f
        for f in findings
        if not (f.check == linting.LONG_NAME and (f.file, f.line) in errors)
        and not (f.check == linting.UNTAKEN and (f.file, f.line) in static)
    ]


def _admitted(
    crds: admission.OfflineCrds, kind: kinds.Kind, found: Sequence[documents.Document]
) -> tuple[list[tuple[str, dict[str, Any]]], list[Finding]]:
    """The CRs of ``kind`` among ``found`` as the API server would keep them, and the ones it would refuse."""
    parents: list[tuple[str, dict[str, Any]]] = []
    findings: list[Finding] = []
    for document in found:
        refused, notes, parent = crds.judge(document, kind, _NAMESPACE)
        findings += [Finding.of_error(error, "example", default_file=str(document.file)) for error in refused]
        findings += [_note(note, document) for note in notes]
        if parent is not None:
            parents.append((f"{document.file}:{document.line}", parent))
    return parents, findings


def _kubectl_keys(found: Sequence[documents.Document]) -> list[Finding]:
    """A warning at each key kubectl would send as "true" or "false" (``Document.kubectl_keys``),
    which ``stencil render`` and ``stencil test`` refuse; the rest of the document is linted as written."""
    return [
        dataclasses.replace(Finding.of_error(error, KUBECTL_KEY), severity="warning")
        for document in found
        for error in document.kubectl_keys()
    ]


_PLACED = re.compile(r"(?P<file>[^:]+):(?P<line>\d+): (?P<message>.*)", re.DOTALL)


def _note(note: str, document: documents.Document) -> Finding:
    """A check that could not run offline (a CEL rule cel-python cannot evaluate), as a warning."""
    placed = _PLACED.fullmatch(note)
    if placed is None:
        return Finding(str(document.file), document.line, None, "warning", note, "unchecked")
    file, line, message = placed["file"], int(placed["line"]), placed["message"]
    return Finding(file, line, None, "warning", f"not checked offline: {message}", "unchecked")


Check = Callable[[_Known, Sequence[tuple[str, dict[str, Any]]]], list[Finding]]


def _crd(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    if known.schema is not None or known.crds_broken or not known.kind.crd_file_needed:
        return []
    kind = known.kind
    message = (
        f"parent.kind: no CRD in {known.crd_place} serves {kind.kind} ({kind.api_version}): "
        "the examples are not validated and the templates' parent fields are not checked"
    )
    file = kind.directory / kinds.KIND_FILE
    line = documents.Document.read(file).line_of(("parent", "kind"))
    return [Finding(str(file), line, None, "warning", message, "no-crd")]


def _columns(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    """A warning where the parent's CRD (a file of the kind's CRDs, or the one its ``schema:``
    writes) has no Ready printer column."""
    kind = known.kind
    if known.schema is None:
        return []
    version = apis.split_api_version(kind.api_version)[1]
    if kind.crd is not None:
        file = kind.directory / kinds.KIND_FILE
        index = columns.missing_ready(kind.crd, kind.api_version, kind.kind)
        found = (
            [] if index is None else [(str(file), documents.Document.read(file).line_of(("schema",)), index)]
        )
    else:
        found = [
            (str(document.file), document.line_of(("spec", "versions", index, "name")), index)
            for document in admission.crd_documents(Path(known.crd_place))
            if (index := columns.missing_ready(document.data, kind.api_version, kind.kind)) is not None
        ]
    return [
        Finding(
            file,
            line,
            None,
            "warning",
            f"spec.versions[{index}].additionalPrinterColumns: {columns.advice(kind.kind, version)}",
            "printer-columns",
        )
        for file, line, index in found
    ]


def _pruned(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    """An error for each field of the status the engine writes that the parent's CRD would prune."""
    if known.schema is None or known.crds_broken:
        return []
    hand_written = admission.crd_documents(Path(known.crd_place)) if known.kind.crd is None else []
    return linting.check_pruned_status(known.kind, hand_written)


def _round_trips(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    return linting.check_round_trips(known.kind, parents)


def _templates(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    return linting.check_templates(known.kind, known.schema, known.child_kinds)


def _placement(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    return linting.check_placement(known.kind)


def _controller_fields(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    return linting.check_controller_fields(known.kind)


def _rules(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    return linting.check_rules(known.kind, known.schema, known.child_kinds)


def _status_rules(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    """Each status rule that fails for an example that renders (its children healthy), at the
    rule's line: live, its condition would read Unknown, or its field be left out."""
    if known.traced.findings:
        return []  # an example that does not render says so; its rules are not evaluated
    kind, now = known.kind, conditions.timestamp(datetime.datetime.now(datetime.UTC))
    found = []
    for where, parent in parents:
        _, failures = preview.parent_status(
            kind, parent, now, fixtures=_given(known, where), is_namespaced=known.crds.is_namespaced
        )
        for error in failures:
            failed = Finding.of_error(
                error, "status-rule", default_file=str(kind.directory / kinds.KIND_FILE)
            )
            found.append(
                dataclasses.replace(failed, message=f"{failed.message} (for the example at {where})")
            )
    return found


def _children(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    return list(known.child_findings)


def _relations(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    return [f for render in known.traced.renders for f in linting.check_relations(render)]


def _long_names(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    if known.schema is None:
        return []
    renamed = linting.one_per_path(parents, known.traced.paths)  # the examples first
    given = functools.partial(_given, known)
    found = linting.check_long_names(
        known.kind, renamed, known.crds, is_namespaced=known.crds.is_namespaced, given=given
    )
    # What the examples' own children already show is not repeated for the renamed ones.
    shown = {(f.file, f.line) for f in known.child_findings}
    return [f for f in found if (f.file, f.line) not in shown]


def _coverage(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    kind = known.kind
    if not parents:
        folder = kind.directory / kinds.EXAMPLES_DIR
        why = "none is admitted" if kind.examples else "there is none"
        message = f"no example of {kind.kind} in {folder} to render ({why}): no branch is known to work"
        return [Finding(str(kind.directory / kinds.KIND_FILE), None, None, "warning", message, "coverage")]
    if known.traced.findings:
        return []  # a failed render stops early: its untaken branches would be noise beside its error
    crds = known.crds
    given = functools.partial(_given, known)
    return linting.check_coverage(
        kind, known.traced.executed, parents, crds, is_namespaced=crds.is_namespaced, given=given
    )


def _handed(known: _Known, parents: Sequence[tuple[str, dict[str, Any]]]) -> list[Finding]:
    """An ``applyOnce`` field that no child its template renders for the examples holds hands
    nothing to other writers: a misspelt path, most likely (its real field stays the engine's)."""
    found = []
    kind_yaml = str(known.kind.directory / kinds.KIND_FILE)
    for template in known.kind.templates:
        made = [located.child for located in known.traced.located if located.template.id == template.id]
        life = template.lifecycle
        for text, path in zip(life.apply_once, life.paths, strict=True) if made else ():
            if all(contention.value_at(child, path) is None for child in made):
                said = f"applyOnce {text}: no child of {template.id} that the examples render holds it"
                found.append(Finding(kind_yaml, life.line, None, "warning", said, "apply-once"))
    return found


def _given(known: _Known, where: str) -> Sequence[dict[str, Any]]:
    """What the references of the parent read at ``where`` find: its fixtures and ``--observed``."""
    return known.worlds.get(where, ())


_CHECKS: tuple[Check, ...] = (
    _crd,
    _columns,
    _pruned,
    _round_trips,
    _templates,
    _placement,
    _controller_fields,
    _rules,
    _status_rules,
    _children,
    _relations,
    _long_names,
    _coverage,
    _handed,
)


def graph(kind_dirs: Sequence[Path]) -> list[str]:
    """What each template of the kinds waits for, one line an edge, with why: an ``after:`` of
    kind.yaml, or a ``children.<id>`` the template reads (file and line).  ``stencil lint --graph``
    prints it; a folder that does not load has no graph (``lint`` says why)."""
    lines: list[str] = []
    for directory in kind_dirs:
        try:
            kind = kinds.load_kind(directory)
        except KindError:
            continue
        edges = []
        for template in kind.templates:
            for needed in template.waits_for:
                read = next((r for r in template.reads if r.id == needed), None)
                why = f"reads children.{needed} at {template.path}:{read.line}" if read else None
                why = why or "after: in kind.yaml"
                edges.append(f"{directory}: {template.id} waits for {needed} ({why})")
        lines += edges or [f"{directory}: no template waits for another"]
    return lines
