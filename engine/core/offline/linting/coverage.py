"""The coverage check: each branch no example takes, said, and tried with a made-up parent.

``branches`` finds the bodies the examples' renders never ran; each is a
warning, and an ``{% if %}`` body is rendered once more for an example made to
take it, with the checks the examples' own children get (``examples``,
``long_names``), keeping what falls inside the body.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
from collections.abc import Callable, Mapping, Sequence, Set
from typing import Any

from jinja2 import nodes

from engine.core import door
from engine.core.model import kinds
from engine.core.model.crds import structural
from engine.core.model.errors import StencilError
from engine.core.offline import admission, validation_rules
from engine.core.offline.linting import paths
from engine.core.offline.linting.branches import Branch, untaken_branches
from engine.core.offline.linting.examples import check_children, render_failure
from engine.core.offline.linting.findings import Finding
from engine.core.offline.linting.long_names import check_long_names
from engine.core.offline.linting.relations import check_relations
from engine.core.offline.linting.trees import walk
from engine.core.templating import sandbox

UNTAKEN = "untaken-branch"  # the check of what a made-up parent finds in a branch no example takes


def check_coverage(
    kind: kinds.Kind,
    executed: Set[tuple[str, int]],
    parents: Sequence[tuple[str, dict[str, Any]]] = (),
    crds: admission.OfflineCrds | None = None,
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    given: Callable[[str], Sequence[dict[str, Any]]] = lambda _where: (),
) -> list[Finding]:
    """A warning for each template branch that no rendered parent took (``render_traced``'s lines), and
    with ``parents`` and ``crds``, what rendering finds in an ``{% if %}`` body a made-up parent takes.

    Most such bodies are guarded by fields the examples leave out
    (``{% if spec.canary is defined %}``), so the first parent is rendered again
    with the fields the guard reads set to a value the CRD accepts: its default,
    the first of its enum, or the least its type and bounds allow.  A made-up value
    the CRD refuses (a pattern, a CEL rule) leaves the body unrendered, and a field
    the made-up parent leaves out is not reported (a real one would set it), so
    only what the body itself breaks is said: output that is not YAML, a child the
    API server or placement would refuse (errors), and a name or label a long
    parent name overflows (warnings), each at its line inside the body.
    """
    schema = crds.schemas.get((kind.api_version, kind.kind)) if crds is not None else None
    findings: list[Finding] = []
    for template, branch in untaken_branches(kind, executed):
        made_up = _taking(branch, parents[0], schema, crds) if parents and schema and crds else None
        read_by = "only the static checks read it"
        if made_up is not None:
            assert crds is not None
            read_by = f"lint tried it with made-up values ({made_up[2]})"
            findings += _render_made_up(kind, template, branch, made_up, crds, is_namespaced, given)
        findings.append(
            Finding(str(template.path), branch.line, None, "warning", f"{branch.what}: {read_by}", "coverage")
        )
    return findings


def _render_made_up(
    kind: kinds.Kind,
    template: kinds.Template,
    branch: Branch,
    made_up: tuple[str, dict[str, Any], str],
    crds: admission.OfflineCrds,
    is_namespaced: Callable[[str, str], bool] | None,
    given: Callable[[str], Sequence[dict[str, Any]]],
) -> list[Finding]:
    """What rendering ``made_up`` (where, parent, what was made up) finds inside ``branch``, its
    references reading ``given(where)``."""
    where, parent, fields = made_up[0], made_up[1], made_up[2]
    context = f" (for the example at {where} with {fields}, which takes the {{% if %}} at line {branch.line})"
    inside = functools.partial(_inside, str(template.path), branch)
    found: list[Finding] = []
    try:
        located = door.offline(kind, parent, (), given(where), is_namespaced=is_namespaced)[0].located
    except StencilError as error:
        if not isinstance(error.__cause__, sandbox.MissingField):
            found.append(render_failure(kind, error, context.strip(" ()")))
    else:
        found += check_children(located, crds, context=context)
        found += check_relations(located, context=context)
    erred = {(f.file, f.line) for f in found if f.severity == "error"}
    long = check_long_names(kind, [(where, parent)], crds, is_namespaced=is_namespaced, given=given)
    found += [f for f in long if (f.file, f.line) not in erred]
    return [dataclasses.replace(f, check=UNTAKEN) for f in found if inside(f)]


def _inside(file: str, branch: Branch, finding: Finding) -> bool:
    last = branch.line
    for part in branch.body:
        for node, _ in walk(part):
            data = node.data if isinstance(node, nodes.TemplateData) else ""
            last = max(last, node.lineno + data.count("\n"))
    return finding.file == file and finding.line is not None and branch.line <= finding.line <= last


def _taking(
    branch: Branch,
    example: tuple[str, dict[str, Any]],
    schema: Mapping[str, Any],
    crds: admission.OfflineCrds,
) -> tuple[str, dict[str, Any], str] | None:
    """The example with every spec field that the branch's test reads and it lacks made up, and what was
    set (``spec.canary: true``); None when the test reads no such field, or one cannot be made up that
    the CRD accepts."""
    if branch.test is None:
        return None
    where, parent = example
    spec = (schema.get("properties") or {}).get("spec")
    tested: list[list[str]] = []
    for node, above in walk(branch.test):
        if isinstance(above, nodes.Getattr | nodes.Getitem) and above.node is node:
            continue
        chain = paths.chain(node) if isinstance(node, nodes.Getattr | nodes.Getitem) else None
        if chain is None:
            continue
        root, path = chain
        if root == "parent" and path[:1] == ["spec"]:
            path = path[1:]
        elif root != "spec":
            continue
        if path and all(isinstance(key, str) for key in path):
            tested.append([str(key) for key in path])
    made = dict(parent)
    made["spec"] = dict(made.get("spec") or {})
    said: list[str] = []
    for keys in tested:
        value: Any = made["spec"]
        node_schema: Any = spec
        for index, key in enumerate(keys):
            if not isinstance(value, dict) or not isinstance(node_schema, Mapping):
                return None
            node_schema = (node_schema.get("properties") or {}).get(key)
            last = index == len(keys) - 1
            if key in value:
                value[key] = copy.deepcopy(value[key])
            else:
                filled = _made_up(node_schema)
                if filled is None:
                    return None
                value[key] = filled
                if last:
                    said.append(f"spec.{'.'.join(keys)}: {json.dumps(filled)}")
            value = value[key]
    if not said:
        return None
    made = crds.defaulted(made)
    if structural.problems(dict(schema), made) or validation_rules.check(dict(schema), made)[0]:
        return None
    return where, made, ", ".join(said)


def _made_up(schema: Mapping[str, Any] | None) -> Any:
    """A value ``schema`` accepts, as plain as it can be; None if none is found here."""
    if not isinstance(schema, Mapping):
        return None
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    if schema.get("enum"):
        return copy.deepcopy(schema["enum"][0])
    kind = schema.get("type")
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        low = schema.get("minimum", 1)
        return min(low, schema["maximum"]) if "maximum" in schema else low
    if kind == "string":
        return "x" * max(int(schema.get("minLength", 1)), 1)
    if kind == "object":
        properties = schema.get("properties") or {}
        made = {name: _made_up(properties.get(name)) for name in schema.get("required") or ()}
        return None if any(value is None for value in made.values()) else made
    if kind == "array":
        item = _made_up(schema.get("items"))
        count = int(schema.get("minItems", 0))
        return None if item is None and count else [copy.deepcopy(item) for _ in range(count)]
    return None
