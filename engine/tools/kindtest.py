"""``stencil test``: a kind author's end-to-end test, every example run on a real local control plane.

For each example of each kind (``examples/*.yaml``) the run applies it into a
namespace of its own, waits until its parent is Ready at its current generation
(or, when ``tests/<example>.status.yaml`` exists, until the parent's status holds
what that file says), and compares the live children with
``tests/<example>.children.yaml``; ``update`` writes that file instead.  The
objects of ``tests/fixtures.yaml`` (for every example of the kind) and of
``tests/<example>.fixtures.yaml`` are applied into the namespace first.  The
companion files live in ``tests/`` because every ``*.yaml`` directly in a kind
folder is a template and every ``examples/*.yaml`` an example: a file in either
place would be read as one.  What the examples share, and the namespace each has
of its own, is ``engine.tools.isolation``.

A parent the API server refuses a child of (``engine.tools.refusals``) fails its
example at once, at the template line of that child: the engine retries such a
refusal, so waiting for Ready would only wait out the timeout.

What a golden file holds is chosen so that it changes when the kind's output
changes and at no other time: of each child, only the fields Stencil's field
manager owns (its ``Apply`` entry in ``metadata.managedFields``), which are
exactly what the templates and placement said.  The API server's defaults,
other controllers' fields and the status are left out: they belong to the
Kubernetes version, not to the kind.  The values that differ on every run are
replaced by placeholders: the example's namespace by ``${NAMESPACE}``, the
parent's uid by ``${PARENT_UID}`` (in the owner reference and labels, and
wherever a template copied it), and the applied-hash annotation, a hash of all
of those, by ``${APPLIED_HASH}``.  A value that differs on every run in some
other way (a name made from a hash of the uid) is written ``${ANY}`` in the
golden file, alone or within a string (``cfg-${ANY}``): the live value is
taken as matching, and ``update`` keeps the mark.

The pure parts (``owned``, ``golden_form``, ``golden_text``, ``differences``,
``compare_children``) come first; ``run`` is the shell that starts the plane,
installs the CRDs, runs the engine in-process on just the chosen kinds, and
tears all of it down again, also on Ctrl-C.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import re
import tempfile
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from engine.core.decisions import planning
from engine.core.model import documents, errors, kinds, placement
from engine.core.offline import admission
from engine.core.templating import rendering
from engine.runtime.kube import FIELD_MANAGER, Kube, Obj
from engine.tools import isolation, parents, refusals

if TYPE_CHECKING:
    from engine.runtime.manager import Engine

TESTS_DIR = "tests"
NAMESPACE_PLACEHOLDER = "${NAMESPACE}"
UID_PLACEHOLDER = "${PARENT_UID}"
HASH_PLACEHOLDER = "${APPLIED_HASH}"
ANY_PLACEHOLDER = "${ANY}"  # written by hand in a golden file: any value matches
FIXTURES = "fixtures"
POLL = 0.2  # seconds between looks at the parents being waited for


class UsageError(errors.StencilError):
    """The command was asked for something that is not a test: a folder that is not a kind, say."""


@dataclass(frozen=True)
class Example:
    """One example file of a kind, and where its companion files are."""

    kind: kinds.Kind
    path: Path

    @property
    def name(self) -> str:
        return f"{self.kind.name}/{self.path.stem}"

    @property
    def golden(self) -> Path:
        """The children the example's parents should have, in their golden form."""
        return self.kind.directory / TESTS_DIR / f"{self.path.stem}.children.yaml"

    @property
    def expected_status(self) -> Path:
        """If it exists: the status to wait for instead of Ready."""
        return self.kind.directory / TESTS_DIR / f"{self.path.stem}.status.yaml"

    @property
    def fixtures(self) -> list[Path]:
        """The files of objects to apply before the example: the kind's, then the example's own."""
        tests = self.kind.directory / TESTS_DIR
        candidates = [tests / f"{FIXTURES}.yaml", tests / f"{self.path.stem}.{FIXTURES}.yaml"]
        return [path for path in candidates if path.is_file()]


@dataclass(frozen=True)
class Outcome:
    """What became of one example."""

    example: Example
    namespace: str
    seconds: float | None  # from its apply to Ready (or the expected status); None: never got there
    problems: tuple[str, ...] = ()  # each a sentence naming the file, line and field where it can
    diff: str = ""  # golden file against the live children, unified
    wrote: Path | None = None  # the golden file written by ``update``
    stopped: float | None = None  # not Ready: how long after its apply it was given up

    @property
    def passed(self) -> bool:
        return self.seconds is not None and not self.problems


@dataclass(frozen=True)
class Report:
    outcomes: tuple[Outcome, ...]
    seconds: float  # the whole run, start-up and teardown of the plane included
    plane_seconds: float = 0.0  # of which starting the control plane

    @property
    def passed(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)


# -- the golden form of a child (pure) ---------------------------------------------------------


def owned(value: Any, fields: Mapping[str, Any]) -> Any:
    """The part of ``value`` that a ``fieldsV1`` set names.

    ``f:<name>`` is a field of a map, ``k:<json>`` the item of a list whose keys have those
    values, ``v:<json>`` the item of a set equal to that value; ``.`` marks the map or item
    itself.  A field named with nothing under it is owned whole (a leaf, or an atomic list).
    """
    named = {key: sub for key, sub in fields.items() if key != "."}
    if not named:
        return value
    if isinstance(value, dict):
        return {
            key[2:]: owned(value[key[2:]], sub)
            for key, sub in named.items()
            if key.startswith("f:") and key[2:] in value
        }
    if isinstance(value, list):
        kept = []
        for item in value:
            for key, sub in named.items():
                if _is_item(item, key):
                    kept.append(owned(item, sub))
                    break
        return kept
    return value


def _is_item(item: Any, key: str) -> bool:
    if key.startswith("k:"):
        wanted = json.loads(key[2:])
        return isinstance(item, dict) and all(item.get(k) == v for k, v in wanted.items())
    if key.startswith("v:"):
        return bool(item == json.loads(key[2:]))
    return False


def applied_fields(child: Mapping[str, Any]) -> dict[str, Any]:
    """The ``fieldsV1`` of Stencil's ``Apply`` entry in the child's managed fields ({} if none)."""
    for entry in (child.get("metadata") or {}).get("managedFields") or ():
        if (
            entry.get("manager") == FIELD_MANAGER
            and entry.get("operation") == "Apply"
            and not entry.get("subresource")
        ):
            fields: dict[str, Any] = entry.get("fieldsV1") or {}
            return fields
    return {}


def golden_form(child: Mapping[str, Any], namespace: str, parent_uids: Iterable[str]) -> Obj:
    """What a golden file keeps of a live child: its identity and the fields Stencil applied,
    with the namespace, the parents' uids and the applied hash replaced by placeholders."""
    meta = child.get("metadata") or {}
    kept: Obj = owned(dict(child), applied_fields(child))
    identity = {"name": meta.get("name")}
    if meta.get("namespace"):
        identity["namespace"] = meta["namespace"]
    form: Obj = {
        **kept,
        "apiVersion": child.get("apiVersion"),
        "kind": child.get("kind"),
        "metadata": {**(kept.get("metadata") or {}), **identity},
    }
    annotations = form["metadata"].get("annotations")
    if isinstance(annotations, dict) and planning.HASH_ANNOTATION in annotations:
        form["metadata"]["annotations"] = {**annotations, planning.HASH_ANNOTATION: HASH_PLACEHOLDER}
    replacements = {uid: UID_PLACEHOLDER for uid in parent_uids if uid}
    replacements[namespace] = NAMESPACE_PLACEHOLDER
    result: Obj = normalised(form, replacements)
    return result


def normalised(value: Any, replacements: Mapping[str, str]) -> Any:
    """``value`` with every occurrence of each key of ``replacements`` in its strings (keys too)
    replaced; longer keys first, so a uid that contains a namespace's name stays whole."""
    ordered = sorted(replacements, key=len, reverse=True)
    if not ordered:
        return value
    pattern = re.compile("|".join(re.escape(key) for key in ordered))

    def walk(item: Any) -> Any:
        if isinstance(item, str):
            return pattern.sub(lambda match: replacements[match.group(0)], item)
        if isinstance(item, dict):
            return {walk(key): walk(sub) for key, sub in item.items()}
        if isinstance(item, list):
            return [walk(sub) for sub in item]
        return item

    return walk(value)


def identity(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    meta = obj.get("metadata") or {}
    return (
        str(obj.get("apiVersion", "")),
        str(obj.get("kind", "")),
        str(meta.get("namespace") or ""),
        str(meta.get("name", "")),
    )


def golden_text(forms: Iterable[Obj]) -> str:
    """The golden file's text: the children sorted by apiVersion, kind, namespace and name."""
    ordered = sorted(forms, key=identity)
    return yaml.dump_all(
        ordered, Dumper=yaml.CSafeDumper, sort_keys=True, default_flow_style=False, explicit_start=True
    )


def marked(forms: Iterable[Obj], golden: Iterable[Any]) -> list[Obj]:
    """``forms`` with each value that the golden file marks ``${ANY}`` written as the golden file
    writes it, where the live value matches; a form is paired with the golden document of the
    same identity (which may itself hold marks)."""
    unpaired = [doc for doc in golden if isinstance(doc, dict)]
    result = []
    for form in forms:
        mine = identity(form)
        pair = next((doc for doc in unpaired if identity(doc) == mine), None)
        if pair is None:
            pair = next((doc for doc in unpaired if _matches_all(identity(doc), mine)), None)
        if pair is None:
            result.append(form)
            continue
        unpaired.remove(pair)
        result.append(_masked(pair, form))
    return result


def matches(expected: Any, live: Any) -> bool:
    """Whether a golden value holding ``${ANY}`` stands for ``live``: ``${ANY}`` alone for any
    value, within a string for any text in its place."""
    if expected == ANY_PLACEHOLDER:
        return True
    if not isinstance(expected, str) or ANY_PLACEHOLDER not in expected or not isinstance(live, str):
        return False
    pattern = ".*".join(re.escape(part) for part in expected.split(ANY_PLACEHOLDER))
    return re.fullmatch(pattern, live, flags=re.DOTALL) is not None


def _matches_all(expected: Iterable[str], live: Iterable[str]) -> bool:
    return all(e == v or matches(e, v) for e, v in zip(expected, live, strict=True))


def _masked(expected: Any, live: Any) -> Any:
    if matches(expected, live):
        return expected
    if isinstance(expected, dict) and isinstance(live, dict):
        return {key: _masked(expected.get(key), value) for key, value in live.items()}
    if isinstance(expected, list) and isinstance(live, list):
        return [_masked(expected[i] if i < len(expected) else None, v) for i, v in enumerate(live)]
    return live


# -- comparing (pure) ---------------------------------------------------------------------------

_ABSENT = object()


@dataclass(frozen=True)
class Difference:
    """One field where what was expected and what is live differ; ``_ABSENT`` where there is none."""

    path: documents.FieldPath
    expected: Any
    live: Any

    @property
    def field(self) -> str:
        return dotted(self.path)

    def describe(self) -> str:
        return f"{self.field or '(whole object)'}: expected {_shown(self.expected)}, live {_shown(self.live)}"


def dotted(path: documents.FieldPath) -> str:
    """``("spec", "ports", 0, "port")`` as ``spec.ports[0].port``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "absent"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:79] + "…"


def differences(
    expected: Any, live: Any, path: documents.FieldPath = (), *, subset: bool = False
) -> list[Difference]:
    """Where ``live`` differs from ``expected``, field by field.

    With ``subset``, only what ``expected`` names is compared (a map may have more keys
    live), and a list of conditions (maps with a ``type``) is matched by type, not position:
    that is how an expected status is read.
    """
    if isinstance(expected, dict) and isinstance(live, dict):
        found = []
        keys = list(expected) if subset else sorted(set(expected) | set(live), key=str)
        for key in keys:
            found += differences(
                expected.get(key, _ABSENT), live.get(key, _ABSENT), (*path, key), subset=subset
            )
        return found
    if isinstance(expected, list) and isinstance(live, list):
        if subset and expected and all(isinstance(item, dict) and "type" in item for item in expected):
            by_type = {item.get("type"): item for item in live if isinstance(item, dict)}
            found = []
            for index, item in enumerate(expected):
                found += differences(item, by_type.get(item["type"], _ABSENT), (*path, index), subset=True)
            return found
        found = []
        for index in range(max(len(expected), len(live))):
            found += differences(
                expected[index] if index < len(expected) else _ABSENT,
                live[index] if index < len(live) else _ABSENT,
                (*path, index),
                subset=subset,
            )
        return found
    if expected is _ABSENT and live is _ABSENT:
        return []
    if expected == live and type(expected) is type(live):
        return []
    return [Difference(path, expected, live)]


def compare_children(golden: Path, live_text: str) -> tuple[list[str], str]:
    """The problems (``file:line: Kind name: field: expected …, live …``) and the unified diff
    of the golden file against the live children's golden text; ([], "") when they agree."""
    try:
        expected_text = golden.read_text(encoding="utf-8")
    except FileNotFoundError:
        return [f"{golden}: no golden file (run with --update to write it)"], ""
    if expected_text == live_text:
        return [], ""
    expected_docs = documents.Document.read_all(golden, errors.StencilError)
    live = {identity(doc): doc for doc in yaml.load_all(live_text, Loader=yaml.CSafeLoader) if doc}
    problems = []
    seen = set()
    for document in expected_docs:
        key = identity(document.data) if isinstance(document.data, dict) else ("", "", "", "")
        seen.add(key)
        who = f"{key[1]} {key[3]}"
        if key not in live:
            problems.append(f"{golden}:{document.line}: {who}: expected, but the parent has no such child")
            continue
        for difference in differences(document.data, live[key]):
            line = document.line_of(difference.path)
            problems.append(f"{golden}:{line}: {who}: {difference.describe()}")
    for key in live:
        if key not in seen:
            problems.append(f"{golden}: {key[1]} {key[3]}: a live child the golden file does not have")
    diff = "".join(
        difflib.unified_diff(
            expected_text.splitlines(keepends=True),
            live_text.splitlines(keepends=True),
            fromfile=str(golden),
            tofile="live",
        )
    )
    return problems or [f"{golden}: differs from the live children only in layout"], diff


# -- choosing what to run ---------------------------------------------------------------------


def load(kind_dirs: Sequence[Path]) -> list[kinds.Kind]:
    """The kinds of the folders, in order; ``UsageError`` for a folder that is not a kind or a
    name given twice, ``KindError`` (file, line, field) for a kind folder that does not load."""
    loaded: list[kinds.Kind] = []
    for directory in kind_dirs:
        if not (directory / kinds.KIND_FILE).is_file():
            raise UsageError(f"{directory} is not a kind folder: it has no {kinds.KIND_FILE}")
        kind = kinds.load_kind(directory)
        if any(other.name == kind.name for other in loaded):
            raise UsageError(f"two kind folders are named {kind.name}: {directory}")
        loaded.append(kind)
    return loaded


def crds_dirs(chosen: Sequence[kinds.Kind]) -> list[Path]:
    """The CRD folders the kinds need, each once; ``UsageError`` for a kind whose CRD is nowhere."""
    found: list[Path] = []
    for kind in chosen:
        place = admission.find_crds_dir(kind.directory, (kind.api_version, kind.kind))
        if place is None:
            places = " or ".join(str(p) for p in admission.crd_places(kind.directory))
            raise UsageError(f"no CRD for {kind.kind} ({kind.api_version}) of {kind.directory} in {places}")
        if place.resolve() not in [p.resolve() for p in found]:
            found.append(place)
    return found


# -- running -------------------------------------------------------------------------------------


@dataclass
class _Running:
    """An example applied and being waited for."""

    example: Example
    namespace: str
    parents: list[tuple[str, str | None]]  # name and namespace of each parent it applied
    started: float
    expected_status: documents.Document | None = None  # the companion file, if there is one
    last: list[Obj | None] = field(default_factory=list)  # the parents as last seen

    def done(self) -> bool:
        if not self.last or any(parent is None for parent in self.last):
            return False
        if self.expected_status is not None:
            return not any(self.status_differences())
        return all(parents.ready_at_generation(parent) for parent in self.last if parent)

    def status_differences(self) -> list[Difference]:
        return [
            difference
            for parent in self.last
            for difference in differences(
                self.expected_status.data if self.expected_status else None,
                (parent or {}).get("status", _ABSENT),
                subset=True,
            )
        ]

    def why_waiting(self, timeout: float) -> str:
        gone = [name for (name, _), parent in zip(self.parents, self.last, strict=False) if parent is None]
        if gone or not self.last:
            return f"not done after {timeout:.0f}s: parent {', '.join(gone) or '?'} does not exist"
        if self.expected_status is not None:
            document = self.expected_status
            found = "; ".join(
                f"{document.file}:{document.line_of(d.path)}: status.{d.describe()}"
                for d in self.status_differences()[:5]
            )
            return f"not done after {timeout:.0f}s: the status does not match what is expected: {found}"
        waiting = [
            f"{parent['metadata']['name']}: {parents.why_not_ready(parent)}"
            for parent in self.last
            if parent and not parents.ready_at_generation(parent)
        ]
        return f"not Ready after {timeout:.0f}s: {'; '.join(waiting)}"


def run(
    chosen: Sequence[kinds.Kind],
    *,
    timeout: float = 120.0,
    update: bool = False,
    echo: Callable[[str], None] = print,
) -> Report:
    """Start a local control plane with one kwok node, install the kinds' CRDs, run the engine on
    just these kinds, and test every example of each; everything is torn down before returning,
    also when interrupted."""
    from engine.localcluster import LocalCluster
    from engine.runtime import manager
    from engine.tools import manifests

    began = time.monotonic()
    examples = [Example(kind, path) for kind in chosen for path in kind.examples]
    outcomes: list[Outcome] = []
    missing = [kind for kind in chosen if not kind.examples]
    for kind in missing:
        outcomes.append(
            Outcome(Example(kind, kind.directory / kinds.EXAMPLES_DIR), "", None, ("no examples",))
        )
        echo(f"FAIL {kind.name}: no examples in {kind.directory / kinds.EXAMPLES_DIR}")
    crds = crds_dirs(chosen)
    if not examples:
        return Report(tuple(outcomes), time.monotonic() - began)
    echo(f"starting a local control plane with one node for {len(examples)} example(s)...")
    with LocalCluster(nodes=1) as cluster, _served(chosen) as root:
        plane_seconds = time.monotonic() - began
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        for directory in crds:
            manifests.install_crds(kube, directory)
        engine = manager.Engine(kube, root, manager.Options(workers=2))
        engine.start()
        try:
            _wait_for(engine.synced, 60.0, "the engine's caches to fill", cluster.check)
            names = ", ".join(kind.name for kind in chosen)
            echo(f"control plane up in {plane_seconds:.1f}s; engine serving {names}")
            echo(isolation.SHARED)
            # Namespaces first: waiting for each one's ServiceAccount between two applies would
            # add to the first examples' timings.
            namespaces = isolation.namespace_names([(e.kind.name, e.path.stem) for e in examples])
            for namespace in namespaces:
                _make_namespace(kube, namespace)
            clashing = isolation.clashes(
                [(e.name, _cluster_scoped(kube, e, ns)) for e, ns in zip(examples, namespaces, strict=True)]
            )
            running = []
            for index, (example, namespace) in enumerate(zip(examples, namespaces, strict=True)):
                started: _Running | Outcome
                if index in clashing:
                    started = Outcome(
                        example, namespace, None, tuple(f"not run: {p}" for p in clashing[index])
                    )
                else:
                    started = _start(kube, example, namespace)
                if isinstance(started, _Running):
                    running.append(started)
                    continue
                _echo_outcome(started, echo)
                outcomes.append(started)
            for outcome in _finish(kube, engine, running, timeout, update, cluster.check, root, echo):
                outcomes.append(outcome)
        finally:
            engine.stop()
    report = Report(tuple(outcomes), time.monotonic() - began, plane_seconds)
    passed = sum(outcome.passed for outcome in report.outcomes)
    echo(
        f"{passed} passed, {len(report.outcomes) - passed} failed in {report.seconds:.1f}s "
        f"(control plane start {report.plane_seconds:.1f}s)"
    )
    return report


@contextlib.contextmanager
def _served(chosen: Sequence[kinds.Kind]) -> Iterator[Path]:
    """A templates folder holding just the chosen kinds, as links to their folders: the engine
    serves every kind of the folder it is given, and the others may not have their CRDs here."""
    with tempfile.TemporaryDirectory(prefix="stencil-test-kinds-") as tmp:
        root = Path(tmp)
        for kind in chosen:
            (root / kind.name).symlink_to(kind.directory.resolve(), target_is_directory=True)
        yield root


def _make_namespace(kube: Kube, namespace: str) -> None:
    """A fresh namespace for an example, ready for pods."""
    kube.request(
        "POST",
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
    )
    # Pods are refused in a namespace until its default ServiceAccount exists.
    _wait_for(
        lambda: _exists(kube, f"/api/v1/namespaces/{namespace}/serviceaccounts/default"),
        30.0,
        f"the default ServiceAccount of namespace {namespace}",
    )


def _cluster_scoped(kube: Kube, example: Example, namespace: str) -> list[tuple[planning.Ref, str]]:
    """The cluster-scoped objects the example makes, each with where it comes from: its own
    objects, and its parents' children as the templates render them before anything exists.
    A parent whose templates do not render makes nothing here; the engine says why."""
    from engine.tools import manifests

    made: list[tuple[planning.Ref, str]] = []
    kind = example.kind
    for doc in manifests.read([*example.fixtures, example.path]):
        namespaced = kube.is_namespaced(doc["apiVersion"], doc["kind"])
        if not namespaced:
            made.append((planning.ref(doc), str(example.path)))
        if (doc["apiVersion"], doc["kind"]) != (kind.api_version, kind.kind):
            continue
        meta = {**doc["metadata"], "uid": str(uuid.uuid4())}
        if namespaced:
            meta["namespace"] = namespace
        try:
            rendered = rendering.render_located(
                kind, {**doc, "metadata": meta}, [], is_namespaced=kube.is_namespaced
            )
        except errors.StencilError:
            continue
        for child in rendered:
            if not child.child["metadata"].get("namespace"):
                file, line = child.where(("metadata", "name"))
                made.append((planning.ref(child.child), f"{file}:{line}"))
    return made


def _start(kube: Kube, example: Example, namespace: str) -> _Running | Outcome:
    """Apply the fixtures and then the example into its namespace, and start its clock; an
    ``Outcome`` instead if the API server refuses one of their objects."""
    from engine.tools import manifests

    expected = None
    if example.expected_status.is_file():
        expected = documents.Document.read(example.expected_status, errors.StencilError)
    applied: list[Obj] = []
    started = time.monotonic()
    for path in [*example.fixtures, example.path]:
        started = time.monotonic()  # the example's clock starts with its own apply
        try:
            applied = manifests.apply_all(kube, manifests.read([path]), namespace)
        except errors.ApiError as error:
            return Outcome(example, namespace, None, (f"{path}: {error}",))
    kind = example.kind
    applied_parents = [
        (obj["metadata"]["name"], obj["metadata"].get("namespace"))
        for obj in applied
        if obj.get("kind") == kind.kind and obj.get("apiVersion") == kind.api_version
    ]
    if not applied_parents:
        raise UsageError(f"{example.path}: no {kind.kind} ({kind.api_version}) in the example")
    return _Running(example, namespace, applied_parents, started, expected)


def _finish(
    kube: Kube,
    engine: Engine,
    running: list[_Running],
    timeout: float,
    update: bool,
    check: Callable[[], None],
    root: Path,
    echo: Callable[[str], None],
) -> Iterator[Outcome]:
    """Wait for every example at once, and check each as soon as it is done or out of time."""
    pending = list(running)
    while pending:
        for item in list(pending):
            res = kube.resource(item.example.kind.api_version, item.example.kind.kind)
            item.last = [kube.get(res, name, namespace) for name, namespace in item.parents]
            seconds = time.monotonic() - item.started
            refused = [refusals.refusal(parent) for parent in item.last if parent]
            if item.done():
                outcome = _check(kube, engine, item, seconds, update)
            elif any(refused):
                problems = [_refused(kube, engine, item, refusal) for refusal in refused if refusal]
                outcome = Outcome(
                    item.example,
                    item.namespace,
                    None,
                    tuple(_real_paths(p, root, item.example.kind) for p in problems),
                    stopped=seconds,
                )
            elif seconds > timeout:
                problem = _real_paths(item.why_waiting(timeout), root, item.example.kind)
                outcome = Outcome(item.example, item.namespace, None, (problem,), stopped=seconds)
            else:
                continue
            pending.remove(item)
            _echo_outcome(outcome, echo)
            yield outcome
        check()
        time.sleep(POLL)


def _refused(kube: Kube, engine: Engine, item: _Running, refusal: refusals.Refusal) -> str:
    """The refusal, at the template line of the child it is about: the parent is rendered again
    as the engine rendered it, from the live parent and children."""
    kind = item.example.kind
    located: list[rendering.Located] = []
    for parent in item.last:
        if not parent:
            continue
        observed = _live_children(kube, engine, kind, str(parent["metadata"]["uid"]))
        try:
            located += rendering.render_located(kind, parent, observed, is_namespaced=kube.is_namespaced)
        except errors.StencilError:
            continue  # a template that does not render: the refusal's message says where
    return f"refused, not retried: {refusals.report(refusal, located)}"


def _check(kube: Kube, engine: Engine, item: _Running, seconds: float, update: bool) -> Outcome:
    """Compare the example's live children with its golden file, or write the file."""
    uids = [str(parent["metadata"]["uid"]) for parent in item.last if parent]
    forms = [
        golden_form(child, item.namespace, uids)
        for uid in uids
        for child in _live_children(kube, engine, item.example.kind, uid)
    ]
    golden = item.example.golden
    if golden.is_file():
        with contextlib.suppress(yaml.YAMLError):  # a broken golden file is reported by comparing
            forms = marked(forms, yaml.load_all(golden.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader))
    text = golden_text(forms)
    if update:
        current = golden.read_text(encoding="utf-8") if golden.is_file() else None
        if current == text:
            return Outcome(item.example, item.namespace, seconds)
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
        return Outcome(item.example, item.namespace, seconds, wrote=golden)
    problems, diff = compare_children(golden, text)
    return Outcome(item.example, item.namespace, seconds, tuple(problems), diff)


def _live_children(kube: Kube, engine: Engine, kind: kinds.Kind, uid: str) -> list[Obj]:
    """The parent's children as the API server has them, managed fields included (the engine's
    caches drop those): every object labelled with its uid, of each kind it may have made."""
    found: list[Obj] = []
    for res in engine.children.resources(kind):
        items, _ = kube.list(res, label_selector=f"{placement.PARENT_UID_LABEL}={uid}")
        found.extend(items)
    return found


def _echo_outcome(outcome: Outcome, echo: Callable[[str], None]) -> None:
    timing = f"ready in {outcome.seconds:.1f}s" if outcome.seconds is not None else "not ready"
    verdict = "PASS" if outcome.passed else "FAIL"
    if outcome.stopped is not None:
        timing += f", stopped after {outcome.stopped:.1f}s"
    line = f"{verdict} {outcome.example.name}  {timing}"
    if outcome.wrote is not None:
        line += f"; wrote {outcome.wrote}"
    echo(line)
    for problem in outcome.problems:
        echo(f"  {problem}")
    if outcome.diff:
        echo("  " + outcome.diff.rstrip("\n").replace("\n", "\n  "))


def _real_paths(text: str, root: Path, kind: kinds.Kind) -> str:
    """``text`` with the served link folder's paths given as the kind folder's own."""
    return text.replace(str(root / kind.name), str(kind.directory))


def _exists(kube: Kube, path: str) -> bool:
    try:
        kube.request("GET", path)
    except errors.NotFound:
        return False
    return True


def _wait_for(
    probe: Callable[[], bool], timeout: float, what: str, check: Callable[[], None] = lambda: None
) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        check()
        if time.monotonic() > deadline:
            raise errors.StencilError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(POLL)
