"""The static checks: every branch of a kind's templates and status rules, read as Jinja syntax trees.

Rendering the examples finds only the mistakes the examples reach.  A typo in
``{% if spec.replicsa is defined %}`` renders without complaint and silently
drops what the branch would have made, so the checks here read the Jinja syntax
tree of every template and rule instead, every branch alike:

* every filter, test and called function, and every test or filter named by a string
  (``selectattr('a', 'odd')``, ``map('upper')``), must exist in the environment the
  template (``engine.core.templating.sandbox``) or rule (``engine.core.model.language.expressions``) runs in;
* every path into the parent (``spec.a.b``, ``parent.spec.a``, ``metadata.labels``,
  ``spec['a']``) must exist in the parent CRD's ``openAPIV3Schema`` (``paths``);
* every child kind a template or rule looks up (``child('Kind', ...)``,
  ``children.Kind``, ``related.Kind``) must be one the kind renders or observes.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from collections.abc import Iterable, Iterator, Mapping, Set
from dataclasses import dataclass
from typing import Any

from jinja2 import Environment, nodes
from jinja2.exceptions import TemplateSyntaxError

from engine.core.decisions import context
from engine.core.model import kinds
from engine.core.model.language import expressions
from engine.core.offline.linting import paths
from engine.core.offline.linting.findings import Finding
from engine.core.templating import sandbox


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


# -- walking one template or rule ---------------------------------------------------------------


def walk(
    node: nodes.Node, parent: nodes.Node | None = None
) -> Iterator[tuple[nodes.Node, nodes.Node | None]]:
    yield node, parent
    for child in node.iter_child_nodes():
        yield from walk(child, node)


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

    def at(self, node: nodes.Node, word: str, *, quoted: bool = False) -> tuple[int | None, int | None]:
        """The line of ``node`` and the column of ``word`` on it (of its opening quote when ``quoted``)."""
        if self.line is not None:
            return self.line, None
        column = None
        if 0 < node.lineno <= len(self.lines):
            text = self.lines[node.lineno - 1]
            if quoted:
                found = re.search(rf"(['\"]){re.escape(word)}\1", text)
            else:
                found = re.search(rf"(?<![\w.]){re.escape(word)}\b", text)
                found = found or re.search(rf"\b{re.escape(word)}\b", text)
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
    files: Set[str] = frozenset()  # what a template may include, import or extend, by name


def _check_tree(tree: nodes.Node, source: _Source, scope: _Scope, declared: Set[str]) -> list[Finding]:
    findings: list[Finding] = []

    def report(node: nodes.Node, word: str, check: str, message: str) -> None:
        line, column = source.at(node, word)
        findings.append(Finding(source.file, line, column, "error", message, check))

    names = scope.offer.names | declared
    functions = scope.offer.functions | declared
    for node, parent in walk(tree):
        if isinstance(node, nodes.Filter) and node.name not in scope.offer.filters:
            hint = _did_you_mean(node.name, scope.offer.filters)
            report(node, node.name, "unknown-filter", f"unknown filter {node.name!r}{hint}")
        elif isinstance(node, nodes.Test) and node.name not in scope.offer.tests:
            hint = _did_you_mean(node.name, scope.offer.tests)
            report(node, node.name, "unknown-test", f"unknown test {node.name!r}{hint}")
        elif isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name):
            called = node.node.name
            if called not in functions:
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
        if isinstance(node, nodes.Filter):
            findings += _check_named_by_string(node, source, scope)
        if isinstance(node, nodes.Include | nodes.Import | nodes.FromImport | nodes.Extends):
            findings += _check_file_named(node, source, scope)
    return findings


def _check_file_named(
    node: nodes.Include | nodes.Import | nodes.FromImport | nodes.Extends, source: _Source, scope: _Scope
) -> list[Finding]:
    """A file included, imported or extended by a constant name that the kind folder has not: in a
    branch no example takes, rendering would fail only once a parent reaches it."""
    named = node.template
    if not isinstance(named, nodes.Const) or not isinstance(named.value, str) or named.value in scope.files:
        return []  # a name built at run time, or a list of names, is left to rendering
    if isinstance(node, nodes.Include) and node.ignore_missing:
        return []
    line, column = source.at(named, named.value, quoted=True)
    return [Finding(source.file, line, column, "error", sandbox.unknown_file(named.value), "unknown-include")]


# The filters whose positional argument at this place names a test (map: a filter) by string.
_NAMED_BY_STRING: Mapping[str, tuple[int, str]] = {
    "select": (0, "test"),
    "reject": (0, "test"),
    "selectattr": (1, "test"),
    "rejectattr": (1, "test"),
    "map": (0, "filter"),
}


def _check_named_by_string(node: nodes.Filter, source: _Source, scope: _Scope) -> list[Finding]:
    """A test or filter named by a string constant (``selectattr('x', 'defind')``, ``map('uper')``).

    Jinja looks the name up only when the filter runs, so a misspelt one in a branch no
    example takes would otherwise pass.  A name built at run time is left alone.
    """
    if node.name not in _NAMED_BY_STRING:
        return []
    place, what = _NAMED_BY_STRING[node.name]
    if len(node.args) <= place:
        return []  # map(attribute=...), select() on truthiness, or the name in *args
    named = node.args[place]
    if not isinstance(named, nodes.Const) or not isinstance(named.value, str):
        return []
    known = scope.offer.tests if what == "test" else scope.offer.filters
    if named.value in known:
        return []
    message = f"unknown {what} {named.value!r} given to {node.name}{_did_you_mean(named.value, known)}"
    line, column = source.at(named, named.value, quoted=True)
    return [Finding(source.file, line, column, "error", message, f"unknown-{what}")]


def _check_chain(node: nodes.Node, source: _Source, scope: _Scope, declared: Set[str]) -> list[Finding]:
    """The first step of a chain such as ``spec.a.b`` that the parent's schema has no room for."""
    found = paths.chain(node)
    if found is None or found[0] in declared:
        return []
    root, path = found
    if scope.check_names and root == "related":
        return []  # a template has no `related`: the name is reported, not its kinds
    if root in ("children", "related") and path and isinstance(path[0], str):
        first = path[0]
        if first[:1].isupper():
            return _check_kind_name(node, source, scope, f"{root}.{first}", first, root == "related")
        # Lower-case keys of `children` are template ids, not kinds: the loader checks them
        # (engine.core.model.sources.dependencies).
    schema = paths.resolve(scope.roots, root, path)
    if not isinstance(schema, tuple):
        return []
    index, missing = schema
    key = path[index]
    field = paths.path_text(root, path[: index + 1])
    under = f" under {paths.path_text(root, path[:index])}" if index else ""
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
    found = paths.chain(iterable)
    listed = paths.resolve(scope.roots, *found) if found is not None else None
    items = listed.get("items") if isinstance(listed, Mapping) else None
    if not isinstance(items, Mapping):
        return []
    name = loop.target.name
    inner = dataclasses.replace(scope, roots={name: items})
    findings: list[Finding] = []
    for part in loop.body:
        for node, parent in walk(part):
            outermost = not (isinstance(parent, nodes.Getattr | nodes.Getitem) and parent.node is node)
            chain = paths.chain(node) if outermost else None
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


# -- the checks --------------------------------------------------------------------------------


def check_templates(
    kind: kinds.Kind, schema: Mapping[str, Any] | None, child_kinds: Set[str]
) -> list[Finding]:
    """Every branch of every template and partial: filters, tests, functions, names, parent fields,
    child kinds, each at the file and line that holds it.

    ``schema`` is the parent CRD's ``openAPIV3Schema`` (None: parent fields are not
    checked); ``child_kinds`` the kinds the kind renders.
    """
    environment = sandbox.make_environment(kind.sources)
    scope = _Scope(
        offer=_template_offer(environment),
        roots=paths.parent_roots(schema, status=False),
        parent_kind=kind.kind,
        child_kinds=child_kinds,
        observed_kinds=frozenset(k for _, k in kind.observe),
        check_names=True,
        files=frozenset(source.name for source in kind.sources),
    )
    trees: list[tuple[kinds.Source, nodes.Template]] = []
    findings: list[Finding] = []
    for template in kind.sources:
        try:
            trees.append((template, environment.parse(template.text, template.name, str(template.path))))
        except TemplateSyntaxError as error:
            findings.append(
                Finding(
                    str(template.path), error.lineno, None, "error", error.message or "syntax error", "syntax"
                )
            )
    # An {% include %}d template or partial sees the names its includer sets: names are the kind's,
    # not the file's.
    declared = set().union(*(_declared(tree) for _, tree in trees))
    for template, tree in trees:
        source = _Source(str(template.path), tuple(template.text.splitlines()))
        findings += _check_tree(tree, source, scope, declared)
    return findings


def rule_expressions(kind: kinds.Kind) -> list[expressions.Expression]:
    """Every status rule of the kind: conditions' status, reason and message, fields, deleteWhen."""
    rules = [r for c in kind.conditions for r in c.rules]
    rules += [f.value for f in kind.fields]
    return [*rules, kind.delete_when] if kind.delete_when is not None else rules


def check_rules(kind: kinds.Kind, schema: Mapping[str, Any] | None, child_kinds: Set[str]) -> list[Finding]:
    """Every status rule: filters, tests, functions, parent fields, child and related kinds."""
    scope = _Scope(
        offer=_RULE_OFFER,
        roots=paths.parent_roots(schema, status=True),
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
