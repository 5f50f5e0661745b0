"""Golden files: what ``stencil test`` keeps of an example's children, and how it compares them.

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
taken as matching, and ``update`` keeps the mark.  ``update`` also proposes the
marks itself: it is given the children of a second run of the example (in a
namespace of its own, started a moment later), and writes ``${ANY}`` for each
value the two runs disagree on (``proposed``), whole, since two values cannot
tell which part of a string moves; a mark can then be narrowed by hand.

Everything here but ``check``, which reads and writes the file, is pure: the
golden form of a live child, the file's text, the ``${ANY}`` marks, and the
problems a comparison finds, each naming the line of the golden file.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from engine.core.decisions.plans import planning
from engine.core.model import errors
from engine.core.model.identity import ChildId
from engine.core.model.language import documents
from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import FIELD_MANAGER
from engine.tools.kindtest.comparing import differences

NAMESPACE_PLACEHOLDER = "${NAMESPACE}"
UID_PLACEHOLDER = "${PARENT_UID}"
HASH_PLACEHOLDER = "${APPLIED_HASH}"
ANY_PLACEHOLDER = "${ANY}"  # written by hand in a golden file: any value matches


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


def _written_order(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    child = ChildId.of(obj)
    return child.api_version, child.kind, child.namespace, child.name


def golden_text(forms: Iterable[Obj]) -> str:
    """The golden file's text: the children sorted by apiVersion, kind, namespace and name."""
    ordered = sorted(forms, key=_written_order)
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
        mine = ChildId.of(form)
        pair = next((doc for doc in unpaired if ChildId.of(doc) == mine), None)
        if pair is None:
            pair = next((doc for doc in unpaired if _matches_all(ChildId.of(doc), mine)), None)
        if pair is None:
            result.append(form)
            continue
        unpaired.remove(pair)
        result.append(_masked(pair, form))
    return result


def proposed(forms: Iterable[Obj], second: Iterable[Obj]) -> list[Obj]:
    """``forms`` with ``${ANY}`` for each value a second run of the example gave otherwise.

    A form is paired with the second run's of the same identity; the rest, whose names differ
    per run, with the second run's of the same kind and namespace, in order.  A value differs
    when the two are not equal, or are lists of different lengths (the whole list is marked); a
    form left unpaired is kept as it is.
    """
    mine = list(forms)
    theirs = [form for form in second if isinstance(form, dict)]
    pairs: dict[int, Obj] = {}
    for alike in (_same_child, _same_kind):
        for index, form in enumerate(mine):
            other = None if index in pairs else next((o for o in theirs if alike(form, o)), None)
            if other is not None:
                theirs.remove(other)
                pairs[index] = other
    return [_varying(form, pairs[index]) if index in pairs else form for index, form in enumerate(mine)]


def _same_child(one: Obj, other: Obj) -> bool:
    return ChildId.of(one) == ChildId.of(other)


def _same_kind(one: Obj, other: Obj) -> bool:
    mine, theirs = ChildId.of(one), ChildId.of(other)
    return (mine.group, mine.kind, mine.namespace) == (theirs.group, theirs.kind, theirs.namespace)


def _varying(one: Any, other: Any) -> Any:
    if one == other and type(one) is type(other):
        return one
    if isinstance(one, dict) and isinstance(other, dict):
        return {key: _varying(value, other[key]) if key in other else value for key, value in one.items()}
    if isinstance(one, list) and isinstance(other, list) and len(one) == len(other):
        return [_varying(a, b) for a, b in zip(one, other, strict=True)]
    return ANY_PLACEHOLDER


def matches(expected: Any, live: Any) -> bool:
    """Whether a golden value holding ``${ANY}`` stands for ``live``: ``${ANY}`` alone for any
    value, within a string for any text in its place."""
    if expected == ANY_PLACEHOLDER:
        return True
    if not isinstance(expected, str) or ANY_PLACEHOLDER not in expected or not isinstance(live, str):
        return False
    pattern = ".*".join(re.escape(part) for part in expected.split(ANY_PLACEHOLDER))
    return re.fullmatch(pattern, live, flags=re.DOTALL) is not None


def _matches_all(expected: ChildId, live: ChildId) -> bool:
    pairs = zip(dataclasses.astuple(expected), dataclasses.astuple(live), strict=True)
    return all(e == v or matches(e, v) for e, v in pairs)


def _masked(expected: Any, live: Any) -> Any:
    if matches(expected, live):
        return expected
    if isinstance(expected, dict) and isinstance(live, dict):
        return {key: _masked(expected.get(key), value) for key, value in live.items()}
    if isinstance(expected, list) and isinstance(live, list):
        return [_masked(expected[i] if i < len(expected) else None, v) for i, v in enumerate(live)]
    return live


# -- comparing and writing ---------------------------------------------------------------------


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
    live = {ChildId.of(doc): doc for doc in yaml.load_all(live_text, Loader=yaml.CSafeLoader) if doc}
    problems = []
    seen = set()
    for document in expected_docs:
        key = ChildId.of(document.data if isinstance(document.data, dict) else {})
        seen.add(key)
        who = f"{key.kind} {key.name}"
        if key not in live:
            problems.append(f"{golden}:{document.line}: {who}: expected, but the parent has no such child")
            continue
        for difference in differences(document.data, live[key]):
            line = document.line_of(difference.path)
            problems.append(f"{golden}:{line}: {who}: {difference.describe()}")
    for key in live:
        if key not in seen:
            problems.append(f"{golden}: {key.kind} {key.name}: a live child the golden file does not have")
    diff = "".join(
        difflib.unified_diff(
            expected_text.splitlines(keepends=True),
            live_text.splitlines(keepends=True),
            fromfile=str(golden),
            tofile="live",
        )
    )
    return problems or [f"{golden}: differs from the live children only in layout"], diff


def check(
    golden: Path, forms: list[Obj], *, update: bool, second: list[Obj] | None = None
) -> tuple[list[str], str, Path | None]:
    """Compare the live children's golden forms with the golden file, or (``update``) write the
    file, with ``${ANY}`` where ``second``, a second run's forms, differs: the problems and diff
    of ``compare_children``, and the file if it was written."""
    if golden.is_file():
        with contextlib.suppress(yaml.YAMLError):  # a broken golden file is reported by comparing
            written = list(yaml.load_all(golden.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader))
            forms = marked(forms, written)
            second = marked(second, written) if second is not None else None
    if update and second is not None:
        forms = proposed(forms, second)
    text = golden_text(forms)
    if update:
        current = golden.read_text(encoding="utf-8") if golden.is_file() else None
        if current == text:
            return [], "", None
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
        return [], "", golden
    problems, diff = compare_children(golden, text)
    return problems, diff, None
