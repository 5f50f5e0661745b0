"""What a template id stands for: one child or a collection, and the rules that say it is ready.

One shape per id.  A template is a *collection* when ``kind.yaml`` says so
(``{file: workers.yaml, collection: true}``); every other template makes at most one
child, and rendering makes a second one an error at its line.  The shape is declared,
not counted and not guessed from the template's text: a count gives a mapping for one
worker and a list for five, so ``children.workers | length`` is the number of a Pod's
top-level keys with one worker; and a loop, a macro or an include can each put out
several documents, so no reading of the text tells them all apart.  ``children.<id>`` of
a collection is therefore a list of 0, 1 or N children, always; of any other template,
the child, or nothing while it is not there.  ``children_by_id`` is where that is
decided, for status rules and for whatever else reads children by id.

``readyWhen`` (one expression, or a list that must all hold) decides when a template's
children are ready, in place of kstatus: for the parent's ``ChildrenReady`` and for
every template that waits for it (``after:``); ``engine.core.decisions.readiness``
evaluates it.  Its names depend on the shape:

* one child: ``child``, the observed object (``self`` would be the name kro's readers
  expect, but Jinja keeps it for the template itself);
* a collection: ``each``, one observed item (a rule that reads it must hold for every
  item), and ``all``, the list of them (a rule that reads only ``all`` is one verdict for
  the collection).

``misread`` finds, at load, a status rule that reads a collection as one child
(``children.workers.status``) or one child as a list (``children.db | length``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from jinja2 import TemplateSyntaxError, meta, nodes

from engine.core.model.errors import KindError
from engine.core.model.identity import ChildId
from engine.core.model.language import expressions

if TYPE_CHECKING:
    from engine.core.model.language.documents import Document, FieldPath
    from engine.core.model.language.expressions import Expression

CHILD, EACH, ALL = "child", "each", "all"
ONE_NAMES = frozenset({CHILD})
COLLECTION_NAMES = frozenset({EACH, ALL})

# What reads a value as a list: a filter over it.  Read on a mapping they count, pick or walk
# its keys, which is never what a rule about one child means.
_LIST_FILTERS = frozenset(
    {"length", "count", "first", "last", "map", "select", "reject", "selectattr", "rejectattr", "sum"}
)
# What reads a value as one object: the helpers that take a child.
_ONE_CHILD_HELPERS = frozenset({"condition", "condition_status", "health"})
_LIST_METHODS = frozenset(name for name in dir(list) if not name.startswith("_"))


class Shaped(Protocol):
    """A template as far as its shape goes (``kinds.Template``)."""

    @property
    def id(self) -> str: ...

    @property
    def collection(self) -> bool: ...

    @property
    def patch(self) -> bool: ...


def children_by_id(templates: Iterable[Shaped], made: Mapping[str, Sequence[Any]]) -> dict[str, Any]:
    """``children.<id>`` for every template: a collection's observed children as a list (empty
    too), another template's one child, ``None`` until it is observed.  ``made`` holds, by template id, the
    observed children each template rendered, in render order; an id of no template reads as
    one child."""
    shapes = {template.id: template.collection for template in templates}
    found: dict[str, Any] = {tid: [] if collection else None for tid, collection in shapes.items()}
    for template_id, objects in made.items():
        if shapes.get(template_id, False):
            found[template_id] = list(objects)
        elif objects:
            found[template_id] = objects[0]  # rendering refuses a second one
    return found


def observed_by_id(
    templates: Iterable[Shaped], made: Iterable[tuple[str, ChildId]], observed: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """``children.<id>``, for templates and status rules alike, from ``made`` (a template's id and a
    child it rendered, in render order) and the ``observed`` children (``children_by_id``)."""
    by_identity = {ChildId.of(obj): obj for obj in observed}
    found: dict[str, list[Mapping[str, Any]]] = {}
    for template_id, child in made:
        obj = by_identity.get(child)
        found.setdefault(template_id, []).extend(() if obj is None else (obj,))
    return children_by_id(templates, found)


def ready_when(
    document: Document, value: str | list[str], where: FieldPath, *, collection: bool
) -> tuple[Expression, ...]:
    """A template's ``readyWhen`` (at ``where`` in kind.yaml), compiled with the names of its shape."""
    names = COLLECTION_NAMES if collection else ONE_NAMES
    texts = [(value, where)] if isinstance(value, str) else [(t, (*where, i)) for i, t in enumerate(value)]
    rules = []
    for text, path in texts:
        try:
            rules.append(document.expression(text, path, names))
        except KindError as error:
            wrong = (ONE_NAMES if collection else COLLECTION_NAMES) & _free_names(text)
            if not wrong:
                raise
            hint = (
                "a collection's readyWhen reads each (one item) or all (the list), not child"
                if collection
                else "each and all are a collection's: say collection: true for the template, or read child"
            )
            raise document.error(f"{text!r} reads {', '.join(sorted(wrong))}: {hint}", path) from error
    return tuple(rules)


def misread(expression: Expression, templates: Iterable[Shaped]) -> str | None:
    """How ``expression`` reads a template's children against its shape, if it does; else None."""
    shapes = {template.id: template.collection for template in templates}
    tree = expressions.ENVIRONMENT.parse("{{ " + expression.text + " }}")
    for node in tree.find_all((nodes.Getattr, nodes.Getitem, nodes.Filter, nodes.Call)):
        problem = _misreading(node, shapes)
        if problem is not None:
            return problem
    return None


def _misreading(node: nodes.Node, shapes: Mapping[str, bool]) -> str | None:
    """What is wrong with ``node``, one step of a rule, if it reads an id against its shape."""
    many = "is a collection (a list of its children, however many it renders)"
    one = "is one child, not a list (say collection: true for a template that renders one per item)"
    if isinstance(node, nodes.Getattr | nodes.Getitem):
        tid, key = _read_id(node.node), _key(node)
        if tid is not None and shapes.get(tid) and isinstance(key, str) and key not in _LIST_METHODS:
            return f"children.{tid} {many}: it has no field {key!r}; read an item of it"
    elif isinstance(node, nodes.Filter) and node.name in _LIST_FILTERS and node.node is not None:
        tid = _read_id(node.node)
        if tid is not None and shapes.get(tid) is False:
            return f"children.{tid} {one}: '| {node.name}' would read its top-level keys"
    elif isinstance(node, nodes.Call) and isinstance(node.node, nodes.Name) and node.args:
        tid = _read_id(node.args[0])
        if tid is not None and shapes.get(tid) and node.node.name in _ONE_CHILD_HELPERS:
            return f"children.{tid} {many}: {node.node.name}() takes one child"
    return None


def _read_id(node: nodes.Node) -> str | None:
    """The id in ``children.<id>`` or ``children['<id>']``, if ``node`` is one."""
    if not isinstance(node, nodes.Getattr | nodes.Getitem):
        return None
    if not (isinstance(node.node, nodes.Name) and node.node.name == "children"):
        return None
    key = _key(node)
    return key if isinstance(key, str) and key[:1].islower() else None


def _key(node: nodes.Getattr | nodes.Getitem) -> object:
    return node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)


def _free_names(text: str) -> set[str]:
    """The names ``text`` reads; none when it does not parse (compiling it says why)."""
    try:
        return set(meta.find_undeclared_variables(expressions.ENVIRONMENT.parse("{{ " + text + " }}")))
    except (TemplateSyntaxError, RecursionError):
        return set()


def check_child_ids(templates: Sequence[Shaped], rules: Sequence[Expression]) -> None:
    """A rule that reads ``children.<id>`` of no template is a typo, and one that reads a
    collection as one child (or one child as a list) is wrong for every count: say so at load."""
    ids = {t.id for t in templates if not t.patch}
    for rule in rules:
        unknown = sorted(expressions.child_ids_read(rule) - ids)
        known = ", ".join(sorted(ids))
        problem = (
            f"children.{unknown[0]}: no template has the id {unknown[0]!r} (ids: {known})"
            if unknown
            else None
        )
        problem = problem or misread(rule, templates)
        if problem:
            raise KindError(problem, file=rule.file, line=rule.line, field=rule.field)
