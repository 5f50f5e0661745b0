"""Static checks of a kind folder: every branch of its templates and status rules, read without running.

Rendering the examples finds only the mistakes the examples reach.  A typo in
``{% if spec.replicsa is defined %}`` renders without complaint and silently
drops what the branch would have made, so the checks here read the Jinja syntax
tree of every template and rule instead, every branch alike:

* every filter, test and called function must exist in the environment the
  template (``engine.core.templating.sandbox``) or rule (``engine.core.model.expressions``) runs in;
* every path into the parent (``spec.a.b``, ``parent.spec.a``, ``metadata.labels``,
  ``spec['a']``) must exist in the parent CRD's ``openAPIV3Schema``;
* every child a template spells out in plain text must be one placement allows
  (an RBAC kind needs ``placement.rbac``, another namespace ``placement.namespaces``);
* every child kind a template or rule looks up (``child('Kind', ...)``,
  ``children.Kind``, ``related.Kind``) must be one the kind renders or observes.

What the tree cannot tell, which branches the examples never take, comes from
rendering the examples with a line tracer on the compiled templates
(``render_traced``, then ``check_coverage``): the Python lines of each branch
body are learnt from Jinja's own code generator, so a body of plain text counts
as well as one of expressions.  An ``{% if %}`` body no example takes is then
rendered once for the first example with the fields its test reads made up (as
the CRD allows), so what only rendering finds (output that is not YAML, a child
the API server or placement would refuse) is found there too.

Problems are values (``Finding``), never raised, so one run reports them all;
``engine.tools.linter`` reads the folders and CRDs and gathers the findings.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import functools
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from types import FrameType
from typing import Any, Literal

from jinja2 import Environment, nodes
from jinja2.compiler import CodeGenerator
from jinja2.exceptions import TemplateSyntaxError

from engine.core.decisions import contention, context
from engine.core.model import expressions, kinds, placement, structural
from engine.core.model.errors import StencilError
from engine.core.offline import admission, childschemas, validation_rules
from engine.core.templating import rendering, sandbox

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One problem, where it is: ``check`` is a short id such as ``unknown-filter``."""

    file: str
    line: int | None
    column: int | None
    severity: Severity
    message: str
    check: str

    def __str__(self) -> str:
        where = self.file
        for part in (self.line, self.column if self.line is not None else None):
            if part is not None:
                where += f":{part}"
        return f"{where}: {self.severity}: {self.message}"

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line or 0, self.column or 0, self.severity, self.message)

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def of_error(cls, error: StencilError, check: str, *, default_file: str = "") -> Finding:
        """A finding for an error raised by the loader, an admission or a render."""
        message = f"{error.field}: {error.message}" if error.field else error.message
        return cls(error.file or default_file, error.line, None, "error", message, check)


def _closest(word: str, candidates: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(word, sorted(set(candidates)), n=1)
    return close[0] if close else None


def _did_you_mean(word: str, candidates: Iterable[str]) -> str:
    close = _closest(word, candidates)
    return f" (did you mean {close}?)" if close else ""


# -- what each environment offers ----------------------------------------------------------

# Names Jinja itself provides inside loops, macros and call blocks.
_JINJA_NAMES = frozenset({"loop", "caller", "varargs", "kwargs", "self", "super"})


@dataclass(frozen=True)
class _Offer:
    """What an expression may name: filters, tests, names, and which of the names are functions."""

    filters: frozenset[str]
    tests: frozenset[str]
    names: frozenset[str]
    functions: frozenset[str]

    @classmethod
    def of(cls, environment: Environment, context: Mapping[str, Any]) -> _Offer:
        both = {**environment.globals, **context}
        return cls(
            filters=frozenset(environment.filters),
            tests=frozenset(environment.tests),
            names=frozenset(both) | _JINJA_NAMES,
            functions=frozenset(name for name, value in both.items() if callable(value)),
        )


def _template_offer(environment: sandbox.Sandbox) -> _Offer:
    return _Offer.of(environment, sandbox.template_context({}, ()))


# The rules' environment is the expressions module's own, so the two cannot disagree.
_RULE_ENVIRONMENT: Environment = expressions.ENVIRONMENT
_RULE_OFFER = _Offer.of(_RULE_ENVIRONMENT, context.status_context({}, ()))


# -- paths into the parent --------------------------------------------------------------------

_STRINGS: dict[str, Any] = {"type": "object", "additionalProperties": {"type": "string"}}
# The API server's ObjectMeta: a CRD's schema says only `metadata: {type: object}`.
OBJECT_META: dict[str, Any] = {
    "type": "object",
    "properties": {
        **{
            name: {"type": "string"}
            for name in ("name", "generateName", "namespace", "uid", "resourceVersion", "selfLink")
        },
        **{name: {"type": "string"} for name in ("creationTimestamp", "deletionTimestamp")},
        "generation": {"type": "integer"},
        "deletionGracePeriodSeconds": {"type": "integer"},
        "labels": _STRINGS,
        "annotations": _STRINGS,
        "finalizers": {"type": "array", "items": {"type": "string"}},
        "ownerReferences": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    **{name: {"type": "string"} for name in ("apiVersion", "kind", "name", "uid")},
                    **{name: {"type": "boolean"} for name in ("controller", "blockOwnerDeletion")},
                },
            },
        },
        "managedFields": {"type": "array", "items": {"x-kubernetes-preserve-unknown-fields": True}},
    },
}
# What a mapping answers that is not a field: the sandbox gives a CR field of the name first.
_MAPPING_METHODS = frozenset({"items", "keys", "values", "get"})
_ANY = object()  # the index of a `spec.ports[i]` whose i is not a constant
_Key = str | int | object


@dataclass(frozen=True)
class _Missing:
    known: tuple[str, ...]


def _step(schema: Mapping[str, Any], key: _Key) -> Mapping[str, Any] | _Missing | None:
    """The schema of ``key`` under ``schema``; ``_Missing`` if it cannot be there; None if not known."""
    if isinstance(key, int) or key is _ANY:
        items = schema.get("items")
        if isinstance(items, Mapping):
            return items
        extra = schema.get("additionalProperties")
        return extra if key is _ANY and isinstance(extra, Mapping) else None
    assert isinstance(key, str)
    properties: Mapping[str, Any] = schema.get("properties") or {}
    if schema.get("x-kubernetes-embedded-resource"):
        properties = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, **properties}
        properties = {**properties, "metadata": OBJECT_META}
    if key in properties:
        sub = properties[key]
        return sub if isinstance(sub, Mapping) else None
    extra = schema.get("additionalProperties")
    if schema.get("x-kubernetes-preserve-unknown-fields") or extra is True:
        return None
    if isinstance(extra, Mapping):
        return extra
    if key in _MAPPING_METHODS or (schema.get("type") != "object" and not properties):
        return None  # a method (`.items()`, a string's `.upper()`), not a field
    return _Missing(tuple(properties))


def _chain(node: nodes.Node) -> tuple[str, list[_Key]] | None:
    """``spec.a['b'][0]`` -> ``("spec", ["a", "b", 0])``; None if it is not a chain from a name."""
    path: list[_Key] = []
    while isinstance(node, nodes.Getattr | nodes.Getitem):
        if isinstance(node, nodes.Getattr):
            path.append(node.attr)
        elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str | int):
            path.append(node.arg.value)
        elif isinstance(node.arg, nodes.Slice):
            pass  # a slice of a list is a list of the same items
        else:
            path.append(_ANY)
        node = node.node
    if not isinstance(node, nodes.Name) or node.ctx != "load":
        return None
    return node.name, path[::-1]


def _path_text(root: str, path: Sequence[_Key]) -> str:
    text = root
    for key in path:
        text = f"{text}[…]" if key is _ANY else sandbox.join_path(text, key)
    return text


# -- walking one template or rule ---------------------------------------------------------------


def _walk(
    node: nodes.Node, parent: nodes.Node | None = None
) -> Iterator[tuple[nodes.Node, nodes.Node | None]]:
    yield node, parent
    for child in node.iter_child_nodes():
        yield from _walk(child, node)


def _declared(tree: nodes.Node) -> set[str]:
    """Every name a template or rule defines itself (set, for, macro, parameters, imports)."""
    names = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
    names |= {m.name for m in tree.find_all(nodes.Macro)}
    names |= {i.target for i in tree.find_all(nodes.Import)}
    for imported in tree.find_all(nodes.FromImport):
        names |= {n[1] if isinstance(n, tuple) else n for n in imported.names}
    return names


@dataclass(frozen=True)
class _Source:
    """Where a tree came from: a template's file and text (to find columns in), or a rule's line."""

    file: str
    lines: tuple[str, ...] = ()  # the template's text; empty for a rule (one line of kind.yaml)
    line: int | None = None  # the kind.yaml line of a rule

    def at(self, node: nodes.Node, word: str) -> tuple[int | None, int | None]:
        if self.line is not None:
            return self.line, None
        column = None
        if 0 < node.lineno <= len(self.lines):
            found = re.search(rf"(?<![\w.]){re.escape(word)}\b", self.lines[node.lineno - 1])
            found = found or re.search(rf"\b{re.escape(word)}\b", self.lines[node.lineno - 1])
            column = found.start() + 1 if found else None
        return node.lineno, column


@dataclass(frozen=True)
class _Scope:
    """What one template or rule is checked against."""

    offer: _Offer
    roots: Mapping[str, Mapping[str, Any]]  # `spec` -> its schema...; empty without a CRD
    parent_kind: str
    child_kinds: Set[str]
    observed_kinds: Set[str]
    check_names: bool  # rules' names are checked when the kind loads; templates' here


def _check_tree(tree: nodes.Node, source: _Source, scope: _Scope, declared: Set[str]) -> list[Finding]:
    findings: list[Finding] = []

    def report(node: nodes.Node, word: str, check: str, message: str) -> None:
        line, column = source.at(node, word)
        findings.append(Finding(source.file, line, column, "error", message, check))

    names = scope.offer.names | declared
    functions = scope.offer.functions | declared
    for node, parent in _walk(tree):
        if isinstance(node, nodes.Filter) and node.name not in scope.offer.filters:
            hint = _did_you_mean(node.name, scope.offer.filters)
            report(node, node.name, "unknown-filter", f"unknown filter {node.name!r}{hint}")
        elif isinstance(node, nodes.Test) and node.name not in scope.offer.tests:
            hint = _did_you_mean(node.name, scope.offer.tests)
            report(node, node.name, "unknown-test", f"unknown test {node.name!r}{hint}")
        elif isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name):
            called = node.node.name
            if called == "namespace" and called not in declared:
                message = f"not a function 'namespace': {sandbox.NAMESPACE_IS_A_STRING}"
                report(node, called, "unknown-function", message)
            elif called not in functions:
                hint = _did_you_mean(called, functions)
                if not hint and _closest(called, scope.offer.filters):
                    hint = f" (did you mean the filter `| {_closest(called, scope.offer.filters)}`?)"
                what = "not a function" if called in names else "unknown function"
                report(node, called, "unknown-function", f"{what} {called!r}{hint}")
            elif called == "child" and called not in declared:
                findings += _check_child_call(node, source, scope)
        elif isinstance(node, nodes.Name) and node.ctx == "load" and scope.check_names:
            is_called = isinstance(parent, nodes.Call) and parent.node is node
            if node.name not in names and not is_called:
                said = f"unknown name {node.name!r}"
                message = sandbox.unknown_name(node.name, said, _did_you_mean(node.name, names))
                report(node, node.name, "unknown-name", message)
        if isinstance(node, nodes.Getattr | nodes.Getitem) and not (
            isinstance(parent, nodes.Getattr | nodes.Getitem) and parent.node is node
        ):
            findings += _check_chain(node, source, scope, declared)
        if isinstance(node, nodes.For):
            findings += _check_loop(node, source, scope)
    return findings


def _check_chain(node: nodes.Node, source: _Source, scope: _Scope, declared: Set[str]) -> list[Finding]:
    """The first step of a chain such as ``spec.a.b`` that the parent's schema has no room for."""
    found = _chain(node)
    if found is None or found[0] in declared:
        return []
    root, path = found
    if scope.check_names and root == "related":
        return []  # a template has no `related`: the name is reported, not its kinds
    if root in ("children", "related") and path and isinstance(path[0], str):
        first = path[0]
        if first[:1].isupper():
            return _check_kind_name(node, source, scope, f"{root}.{first}", first, root == "related")
        # Lower-case keys of `children` are template ids, not kinds: the loader checks a rule's
        # (ordering); a template reads none.
        if scope.check_names and first not in _MAPPING_METHODS:
            line, column = source.at(node, first)
            message = f"children.{first}: {sandbox.missing_child(first)}"
            return [Finding(source.file, line, column, "error", message, "child-id-in-template")]
    schema = _resolve(scope.roots, root, path)
    if not isinstance(schema, tuple):
        return []
    index, missing = schema
    key = path[index]
    field = _path_text(root, path[: index + 1])
    under = f" under {_path_text(root, path[:index])}" if index else ""
    message = f"{field}: the CRD of {scope.parent_kind} has no field {key}{under}"
    line, column = source.at(node, str(key))
    return [
        Finding(
            source.file,
            line,
            column,
            "error",
            message + _did_you_mean(str(key), missing.known),
            "unknown-field",
        )
    ]


def _resolve(
    roots: Mapping[str, Mapping[str, Any]], root: str, path: Sequence[_Key]
) -> Mapping[str, Any] | tuple[int, _Missing] | None:
    """The schema at ``root`` + ``path``; ``(index, missing)`` for the first step that cannot be; None if
    not known (no schema, or a part the schema leaves open)."""
    schema = roots.get(root)
    for index, key in enumerate(path):
        if schema is None:
            return None
        step = _step(schema, key)
        if isinstance(step, _Missing):
            return index, step
        schema = step
    return schema


# Filters that keep a list's items what they were, so a loop over their result loops over those items.
_SAME_ITEMS = frozenset(
    {"default", "d", "sort", "list", "reverse", "unique", "select", "reject", "selectattr", "rejectattr"}
)


def _check_loop(loop: nodes.For, source: _Source, scope: _Scope) -> list[Finding]:
    """Fields read through a loop variable (``{% for p in spec.ports %}{{ p.prot }}``), against the items."""
    if not isinstance(loop.target, nodes.Name):
        return []
    iterable = loop.iter
    while isinstance(iterable, nodes.Filter) and iterable.node is not None and iterable.name in _SAME_ITEMS:
        iterable = iterable.node
    found = _chain(iterable)
    listed = _resolve(scope.roots, *found) if found is not None else None
    items = listed.get("items") if isinstance(listed, Mapping) else None
    if not isinstance(items, Mapping):
        return []
    name = loop.target.name
    inner = dataclasses.replace(scope, roots={name: items})
    findings: list[Finding] = []
    for part in loop.body:
        for node, parent in _walk(part):
            outermost = not (isinstance(parent, nodes.Getattr | nodes.Getitem) and parent.node is node)
            chain = _chain(node) if outermost else None
            if chain is not None and chain[0] == name:
                findings += _check_chain(node, source, inner, frozenset())
    return findings


def _check_child_call(node: nodes.Call, source: _Source, scope: _Scope) -> list[Finding]:
    if not node.args or not isinstance(node.args[0], nodes.Const) or not isinstance(node.args[0].value, str):
        return []
    kind = node.args[0].value
    return _check_kind_name(node, source, scope, f"child({kind!r}, …)", kind, False)


def _check_kind_name(
    node: nodes.Node, source: _Source, scope: _Scope, written: str, kind: str, related: bool
) -> list[Finding]:
    known = scope.observed_kinds if related else scope.child_kinds
    if kind in known:
        return []
    does = "observes" if related else "renders"
    listed = f" (it {does} {', '.join(sorted(known))})" if known else ""
    message = f"{written}: the kind never {does} a {kind}{listed}{_did_you_mean(kind, known)}"
    line, column = source.at(node, kind)
    return [Finding(source.file, line, column, "error", message, "unknown-child-kind")]


def _roots(schema: Mapping[str, Any] | None, *, status: bool) -> dict[str, Mapping[str, Any]]:
    """The names a template or rule reads the parent by, each with its schema."""
    if schema is None:
        return {}
    properties = dict(schema.get("properties") or {})
    properties["metadata"] = OBJECT_META
    parent = {**schema, "properties": properties}
    roots: dict[str, Mapping[str, Any]] = {"parent": parent, "metadata": OBJECT_META}
    for name in ("spec", "status") if status else ("spec",):
        if isinstance(properties.get(name), Mapping):
            roots[name] = properties[name]
        else:
            roots[name] = {"type": "object", "properties": {}}
    return roots


# -- the checks --------------------------------------------------------------------------------


def check_templates(
    kind: kinds.Kind, schema: Mapping[str, Any] | None, child_kinds: Set[str]
) -> list[Finding]:
    """Every branch of every template: filters, tests, functions, names, parent fields, child kinds.

    ``schema`` is the parent CRD's ``openAPIV3Schema`` (None: parent fields are not
    checked); ``child_kinds`` the kinds the kind renders.
    """
    environment = sandbox.make_environment(kind.templates)
    scope = _Scope(
        offer=_template_offer(environment),
        roots=_roots(schema, status=False),
        parent_kind=kind.kind,
        child_kinds=child_kinds,
        observed_kinds=frozenset(k for _, k in kind.observe),
        check_names=True,
    )
    trees: list[tuple[kinds.Template, nodes.Template]] = []
    findings: list[Finding] = []
    for template in kind.templates:
        try:
            trees.append((template, environment.parse(template.text, template.name, str(template.path))))
        except TemplateSyntaxError as error:
            findings.append(
                Finding(
                    str(template.path), error.lineno, None, "error", error.message or "syntax error", "syntax"
                )
            )
    # An {% include %}d template sees the names its includer sets: names are the kind's, not the file's.
    declared = set().union(*(_declared(tree) for _, tree in trees))
    for template, tree in trees:
        source = _Source(str(template.path), tuple(template.text.splitlines()))
        findings += _check_tree(tree, source, scope, declared)
    return findings


def rule_expressions(kind: kinds.Kind) -> list[expressions.Expression]:
    """Every status rule of the kind: conditions' status, reason and message, fields, deleteWhen."""
    rules = [r for c in kind.conditions for r in (c.status, c.reason, c.message) if r is not None]
    rules += [f.value for f in kind.fields]
    return [*rules, kind.delete_when] if kind.delete_when is not None else rules


def check_rules(kind: kinds.Kind, schema: Mapping[str, Any] | None, child_kinds: Set[str]) -> list[Finding]:
    """Every status rule: filters, tests, functions, parent fields, child and related kinds."""
    scope = _Scope(
        offer=_RULE_OFFER,
        roots=_roots(schema, status=True),
        parent_kind=kind.kind,
        child_kinds=child_kinds,
        observed_kinds=frozenset(k for _, k in kind.observe),
        check_names=False,
    )
    findings: list[Finding] = []
    for rule in rule_expressions(kind):
        tree = _RULE_ENVIRONMENT.parse("{{ " + rule.text + " }}")
        findings += _check_tree(tree, _Source(rule.file, line=rule.line), scope, set())
    return findings


# -- where the children may go, as the templates spell it out ---------------------------------------

_DOCUMENT_SPLIT = re.compile(r"^---[ \t]*(?:#.*)?$")
_LITERAL = r"[ \t]*['\"]?(?P<value>[A-Za-z0-9][-A-Za-z0-9./]*)['\"]?[ \t]*(?:#.*)?$"
_TOP_FIELD = re.compile(r"^(?P<key>apiVersion|kind|metadata):" + rf"(?:{_LITERAL})?")
_NESTED_NAMESPACE = re.compile(r"^(?P<indent>[ \t]+)namespace:" + _LITERAL)
_NESTED = re.compile(r"^(?P<indent>[ \t]+)[^\s#{]")


@dataclass(frozen=True)
class _Literal:
    """What one document of a template says in plain text (no ``{{ }}``): kind, and where it goes."""

    line: int  # its first line, where rendering reports a placement refused
    api_version: str | None
    kind: str | None
    namespace: tuple[int, str] | None  # (line, value) of a literal metadata.namespace


def _literal_documents(text: str) -> Iterator[_Literal]:
    """Each document of a template, read line by line: a branch no example takes is read as well."""
    document: list[tuple[int, str]] = []
    for number, line in [*enumerate(text.splitlines(), 1), (0, "---")]:
        if not _DOCUMENT_SPLIT.match(line):
            document.append((number, line))
            continue
        content = [(n, t) for n, t in document if t.strip() and not t.lstrip().startswith(("#", "{%", "{#"))]
        document = []
        if not content:
            continue
        fields: dict[str, str] = {}
        namespace = None
        section = ""  # the top-level key the lines below belong to
        indent = ""  # of metadata's own fields: the first line under it
        for n, t in content:
            top = _TOP_FIELD.match(t)
            nested = _NESTED.match(t)
            if top is not None:
                section, indent = top["key"], ""
                if top["value"]:
                    fields[top["key"]] = top["value"]
            elif nested is None:
                section = ""
            elif section == "metadata":
                indent = indent or nested["indent"]
                found = _NESTED_NAMESPACE.match(t)
                if found is not None and found["indent"] == indent:
                    namespace = (n, found["value"])
        yield _Literal(content[0][0], fields.get("apiVersion"), fields.get("kind"), namespace)


def check_placement(kind: kinds.Kind) -> list[Finding]:
    """What placement would refuse in every template, where the template spells it out.

    Rendering the examples checks the children they render; a Role or a fixed
    namespace in a branch no example takes would wait for a parent to reach it.
    Only plain values are read: a kind or namespace an expression computes is
    known only once rendered, so the examples' renders check those.
    """
    findings: list[Finding] = []
    allowed = kind.placement.namespaces
    for template in kind.templates:
        for document in _literal_documents(template.text):
            what = document.kind or "a child"
            group = (document.api_version or "").rpartition("/")[0]
            if group == placement.RBAC_GROUP and what in placement.RBAC_KINDS and not kind.placement.rbac:
                message = (
                    f"{what}: RBAC objects are refused unless kind.yaml allows them (placement.rbac: true)"
                )
                findings.append(
                    Finding(str(template.path), document.line, None, "error", message, "placement")
                )
            if document.namespace is not None and "*" not in allowed:
                line, namespace = document.namespace
                if namespace not in allowed:
                    message = (
                        f"metadata.namespace: {what} in namespace {namespace!r}, which is not allowed "
                        f"(placement.namespaces: {', '.join(allowed) or 'none'}): only a parent in "
                        f"{namespace!r} itself could have this child"
                    )
                    findings.append(Finding(str(template.path), line, None, "error", message, "placement"))
    return findings


def check_controller_fields(kind: kinds.Kind) -> list[Finding]:
    """Fields a template writes that one of the cluster's controllers sets itself
    (``contention.SET_BY_CONTROLLERS``): the two would set them back and forth, and the engine
    would restore such a field only ever more slowly, the parent never Ready."""
    findings: list[Finding] = []
    for template in kind.templates:
        for number, line in enumerate(template.text.splitlines(), 1):
            found = _FIELD_KEY.match(line)
            why = contention.SET_BY_CONTROLLERS.get(found["key"]) if found is not None else None
            if found is not None and why is not None:
                message = (
                    f"{found['key']}: {why}; rendering it starts a fight the engine only slows down "
                    "(ContestedField): leave it out"
                )
                findings.append(
                    Finding(str(template.path), number, None, "warning", message, "controller-field")
                )
    return findings


_FIELD_KEY = re.compile(r"""\s*(?:-\s+)?["']?(?P<key>[\w./-]+)["']?\s*:""")


# -- which branches the examples take ------------------------------------------------------------


@dataclass(frozen=True)
class Traced:
    """What rendering some parents gave: the children, the template lines run, and the failures."""

    located: tuple[rendering.Located, ...]  # each child with the template line of each of its fields
    executed: frozenset[tuple[str, int]]  # (template file, line of its compiled Python code)
    findings: tuple[Finding, ...]

    @property
    def children(self) -> list[dict[str, Any]]:
        return [one.child for one in self.located]


def render_traced(
    kind: kinds.Kind,
    parents: Sequence[tuple[str, dict[str, Any]]],
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
) -> Traced:
    """Render each ``(where, parent)`` as the engine would, noting which lines of the templates ran.

    The tracer is on only around the renders, and only frames of this kind's
    compiled templates report their lines, so the rest of the render runs at
    full speed.  A parent that fails to render is a finding naming ``where``.
    """
    files = frozenset(str(t.path) for t in kind.templates)
    executed: set[tuple[str, int]] = set()

    def lines(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            executed.add((frame.f_code.co_filename, frame.f_lineno))
        return lines

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return lines if frame.f_code.co_filename in files else None

    located: list[rendering.Located] = []
    findings: list[Finding] = []
    for where, parent in parents:
        before = sys.gettrace()
        sys.settrace(calls)
        try:
            located += rendering.render_located(kind, parent, [], is_namespaced=is_namespaced)
        except StencilError as error:
            findings.append(_render_failure(kind, error, f"rendering the example at {where}"))
        finally:
            sys.settrace(before)
    return Traced(tuple(located), frozenset(executed), tuple(findings))


def _render_failure(kind: kinds.Kind, error: StencilError, context: str) -> Finding:
    failed = Finding.of_error(error, "render", default_file=str(kind.directory))
    return dataclasses.replace(failed, message=f"{failed.message} ({context})")


# -- would the API server take the children ----------------------------------------------------------


def check_children(
    located: Iterable[rendering.Located], crds: admission.OfflineCrds, *, context: str = ""
) -> list[Finding]:
    """What the API server would refuse in each rendered child, at the template line that wrote it."""
    findings: list[Finding] = []
    for one in located:
        for problem in childschemas.check(one.child, crds):
            file, line = one.where(problem.path)
            message = f"{one.child.get('kind')} {problem}{context}"
            findings.append(Finding(file, line, None, problem.severity, message, "child-schema"))
    return findings


def check_long_names(
    kind: kinds.Kind,
    parents: Sequence[tuple[str, dict[str, Any]]],
    crds: admission.OfflineCrds,
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
) -> list[Finding]:
    """What the children of each parent break once its name is longer, at the shortest name that breaks it.

    Children's names and labels are made from the parent's, so one that is fine
    for the examples' short names can overflow for a name the CRD accepts, and
    where it overflows depends on the child's kind (``childschemas.NAME_RULES``: a
    Job's name at 63 characters, a CronJob's at 52, a ConfigMap's at 253).  So
    each parent is renamed to names of one letter, and a bisection between its own
    name's length and the longest its CRD allows finds the longest name whose
    children break nothing the example's own children do not; what one letter more
    breaks is reported, with the bound the CRD should set.  What is found is a
    warning: no parent is refused yet.
    """
    longest = childschemas.longest_name(crds.schemas.get((kind.api_version, kind.kind)))
    findings: list[Finding] = []
    for where, parent in parents:
        renamed = functools.partial(_renamed, kind, where, parent, crds, is_namespaced)
        own = min(len(parent["metadata"]["name"]), longest)
        findings += _first_overflow(functools.cache(renamed), own, longest)
    return findings


def _renamed(
    kind: kinds.Kind,
    where: str,
    parent: dict[str, Any],
    crds: admission.OfflineCrds,
    is_namespaced: Callable[[str, str], bool] | None,
    length: int,
) -> frozenset[Finding]:
    """What the children of ``parent`` break when it is named with ``length`` letters."""
    named = {**parent, "metadata": {**parent["metadata"], "name": _LONG_NAME_LETTER * length}}
    try:
        located = rendering.render_located(kind, named, [], is_namespaced=is_namespaced)
    except StencilError as error:
        return frozenset([_render_failure(kind, error, f"the example at {where}")])
    return frozenset(check_children(located, crds))


def _first_overflow(renamed: Callable[[int], frozenset[Finding]], own: int, longest: int) -> list[Finding]:
    """What a parent named with one letter more than the longest name that breaks nothing new breaks.

    ``renamed(n)`` is what the children of the parent named with ``n`` letters
    break; nothing is new at ``own`` letters, the example's own length.
    """
    already = {(f.file, f.line) for f in renamed(own)}

    def breaks(length: int) -> list[Finding]:
        return [f for f in renamed(length) if (f.file, f.line) not in already]

    if not breaks(longest):
        return []
    fits, overflows = own, longest  # `fits` letters break nothing new, `overflows` letters do
    while overflows - fits > 1:
        middle = (fits + overflows) // 2
        fits, overflows = (fits, middle) if breaks(middle) else (middle, overflows)
    context = (
        f" (for a parent named with {overflows} characters, which its CRD allows up to {longest}: "
        f"bound the name with self.metadata.name.size() <= {fits})"
    )
    return sorted(
        (
            dataclasses.replace(
                f, severity="warning", message=_LONG_NAME.sub("{name}", f.message) + context, check=LONG_NAME
            )
            for f in breaks(overflows)
        ),
        key=lambda finding: finding.sort_key,
    )


LONG_NAME = "long-name"  # the check of what a parent with the longest name its CRD allows would break
_LONG_NAME_LETTER = "x"
# The long name as messages quote it, whole or clipped: shown as `{name}`, as the template writes it.
_LONG_NAME = re.compile(rf"\"?{_LONG_NAME_LETTER}{{16,}}…?")


@dataclass(frozen=True)
class _Branch:
    line: int
    what: str
    body: list[nodes.Node]
    test: nodes.Node | None = None  # of an {% if %}'s own body: what a parent must satisfy to take it


class _BranchLines(CodeGenerator):
    """Notes the Python lines of every block a code generator writes, and changes nothing it writes.

    Mixed in before the environment's own generator (``_generator``), so the code is the code that ran.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.block_lines: dict[int, tuple[int, int]] = {}

    def blockvisit(self, body: Iterable[nodes.Node], frame: Any) -> None:
        start = self.code_lineno
        super().blockvisit(body, frame)
        # Lines (start, end]; a block begins with a `pass` line, which runs whenever the block is entered.
        self.block_lines.setdefault(id(body), (start, self.code_lineno))


def _generator(environment: Environment, name: str, file: str) -> _BranchLines:
    mixed = type("BranchLines", (_BranchLines, environment.code_generator_class), {})
    generator: _BranchLines = mixed(environment, name, file)
    return generator


def _branches_at(node: nodes.Node) -> list[_Branch]:
    """The bodies an {% if %} (with its elifs and else) or a {% for %} (with its else) chooses between."""
    untaken = "no example takes this {% if %} branch"
    if isinstance(node, nodes.If):
        found = [_Branch(node.lineno, untaken, node.body, node.test)]
        found += [_Branch(e.lineno, "no example takes this {% elif %} branch", e.body) for e in node.elif_]
        if node.else_:
            what = f"no example takes the {{% else %}} branch of the {{% if %}} at line {node.lineno}"
            found.append(_Branch(node.else_[0].lineno, what, node.else_))
        return found
    if isinstance(node, nodes.For):
        found = [_Branch(node.lineno, "the body of this {% for %} runs for no example", node.body)]
        if node.else_:
            what = (
                f"no example takes the {{% else %}} of the {{% for %}} at line {node.lineno} (an empty loop)"
            )
            found.append(_Branch(node.else_[0].lineno, what, node.else_))
        return found
    return []


def _untaken(body: Iterable[nodes.Node], taken: Callable[[_Branch], bool]) -> Iterator[_Branch]:
    """The branches under ``body`` that were not taken; one not taken stands for every branch inside it."""
    for node in body:
        branches = _branches_at(node)
        if not branches:
            yield from _untaken(node.iter_child_nodes(), taken)
        for branch in branches:
            if not branch.body:
                continue
            if taken(branch):
                yield from _untaken(branch.body, taken)
            else:
                yield branch


def _taken(blocks: Mapping[int, tuple[int, int]], ran: Sequence[int], branch: _Branch) -> bool:
    if id(branch.body) not in blocks:
        return True  # no code of its own (optimised away): nothing to say about it
    start, end = blocks[id(branch.body)]
    return any(start < line <= end for line in ran)


def check_coverage(
    kind: kinds.Kind,
    executed: Set[tuple[str, int]],
    parents: Sequence[tuple[str, dict[str, Any]]] = (),
    crds: admission.OfflineCrds | None = None,
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
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
    for template, branch in _untaken_branches(kind, executed):
        made_up = _taking(branch, parents[0], schema, crds) if parents and schema and crds else None
        read_by = "only the static checks read it"
        if made_up is not None:
            assert crds is not None
            read_by = f"lint tried it with made-up values ({made_up[2]})"
            findings += _render_made_up(kind, template, branch, made_up, crds, is_namespaced)
        findings.append(
            Finding(str(template.path), branch.line, None, "warning", f"{branch.what}: {read_by}", "coverage")
        )
    return findings


def _untaken_branches(
    kind: kinds.Kind, executed: Set[tuple[str, int]]
) -> Iterator[tuple[kinds.Template, _Branch]]:
    environment = sandbox.make_environment(kind.templates)
    for template in kind.templates:
        file = str(template.path)
        try:
            tree = environment.parse(template.text, template.name, file)
            generator = _generator(environment, template.name, file)
            generator.visit(tree)
            compiled = environment.get_template(template.name)
        except TemplateSyntaxError:
            continue  # check_templates reports it
        # The same generator over the same tree writes the same code: a different line table would
        # mean the lines that ran are not the lines noted here.
        if "&".join(f"{t}={p}" for t, p in generator.debug_info) != compiled._debug_info:
            continue
        ran = sorted(line for name, line in executed if name == file)
        for branch in _untaken(tree.body, functools.partial(_taken, generator.block_lines, ran)):
            yield template, branch


# -- the {% if %} bodies no example takes, taken by an example with the fields they test -----------


UNTAKEN = "untaken-branch"  # the check of what a made-up parent finds in a branch no example takes


def _render_made_up(
    kind: kinds.Kind,
    template: kinds.Template,
    branch: _Branch,
    made_up: tuple[str, dict[str, Any], str],
    crds: admission.OfflineCrds,
    is_namespaced: Callable[[str, str], bool] | None,
) -> list[Finding]:
    """What rendering ``made_up`` (where, parent, what was made up) finds inside ``branch``."""
    where, parent, fields = made_up[0], made_up[1], made_up[2]
    context = f" (for the example at {where} with {fields}, which takes the {{% if %}} at line {branch.line})"
    inside = functools.partial(_inside, str(template.path), branch)
    found: list[Finding] = []
    try:
        located = rendering.render_located(kind, parent, [], is_namespaced=is_namespaced)
    except StencilError as error:
        if not isinstance(error.__cause__, sandbox.MissingField):
            found.append(_render_failure(kind, error, context.strip(" ()")))
    else:
        found += check_children(located, crds, context=context)
    erred = {(f.file, f.line) for f in found if f.severity == "error"}
    long = check_long_names(kind, [(where, parent)], crds, is_namespaced=is_namespaced)
    found += [f for f in long if (f.file, f.line) not in erred]
    return [dataclasses.replace(f, check=UNTAKEN) for f in found if inside(f)]


def _inside(file: str, branch: _Branch, finding: Finding) -> bool:
    last = branch.line
    for part in branch.body:
        for node, _ in _walk(part):
            data = node.data if isinstance(node, nodes.TemplateData) else ""
            last = max(last, node.lineno + data.count("\n"))
    return finding.file == file and finding.line is not None and branch.line <= finding.line <= last


def _taking(
    branch: _Branch,
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
    for node, above in _walk(branch.test):
        if isinstance(above, nodes.Getattr | nodes.Getitem) and above.node is node:
            continue
        chain = _chain(node) if isinstance(node, nodes.Getattr | nodes.Getitem) else None
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
