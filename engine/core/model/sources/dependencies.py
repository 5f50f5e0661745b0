"""What a template waits for: the templates its ``after:`` names, and those whose children it reads.

A template that reads ``children.<id>`` reads what another template rendered and the
cluster then filled in (a Service's ``clusterIP``).  That makes two needs, both met by
one edge, inferred from the template's syntax tree when the kind loads rather than
written by hand:

* its children are created only once the read template's children exist and are
  healthy, the wait ``after:`` makes (``engine.core.decisions.plans.ordering``);
* in one render it comes after the read template, so that rendering knows which
  observed object is that template's child: the identity of what the read template
  rendered *this time*, matched against what is observed (``render_order``).

A key computed at run time (``children[spec.which]``) makes no edge: only a key the
template spells out does.  The edges are checked once, by the kind loader: an id no
template has, or templates that wait for each other however indirectly, is a
``KindError`` at its line.  ``stencil lint --graph`` shows them.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from jinja2 import TemplateSyntaxError, nodes

from engine.core.model.language import expressions


@dataclass(frozen=True)
class Read:
    """A template reads ``children.<id>``, first on ``line`` of its file."""

    id: str
    line: int


def reads_in(text: str) -> tuple[Read, ...]:
    """The template ids the template ``text`` reads as ``children.<id>``, by line.

    A template that does not parse reads nothing here: rendering and lint say
    where it breaks, at its line.
    """
    try:
        tree = expressions.ENVIRONMENT.parse(text)
    except (TemplateSyntaxError, RecursionError):
        return ()
    found = expressions.child_id_lines(tree)
    return tuple(sorted((Read(id_, line) for id_, line in found.items()), key=lambda r: (r.line, r.id)))


@functools.cache
def reads_observed(text: str) -> bool:
    """Whether the template ``text`` reads observed children at all (``children``, ``child()``):
    what it renders then changes with what the cluster, or the engine's own writes, make of them.
    A template that does not parse reads nothing."""
    try:
        tree = expressions.ENVIRONMENT.parse(text)
    except (TemplateSyntaxError, RecursionError):
        return False
    return any(node.name in ("children", "child") for node in tree.find_all(nodes.Name))


def cycle_from(start: str, waits: Mapping[str, Iterable[str]]) -> list[str]:
    """A path of waits from ``start`` back to ``start`` (``[a, b, a]``), or ``[]``."""
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    visited: set[str] = set()
    while stack:
        node, path = stack.pop()
        for needed in waits.get(node, ()):
            if needed == start:
                return [*path, start]
            if needed not in visited:
                visited.add(needed)
                stack.append((needed, [*path, needed]))
    return []


def render_order(ids: Sequence[str], reads: Mapping[str, Iterable[str]]) -> list[str]:
    """``ids`` (in the kind's order) with each after the ids it reads, and otherwise as they were.

    The kind loader refuses a cycle; should one still be given (a kind built in
    memory), the ids on it keep their own order, after the others.
    """
    known = set(ids)
    needs = {id_: {needed for needed in reads.get(id_, ()) if needed in known} for id_ in ids}
    placed: list[str] = []
    done: set[str] = set()
    while len(placed) < len(ids):
        ready = next((id_ for id_ in ids if id_ not in done and needs[id_] <= done), None)
        if ready is None:
            placed += [id_ for id_ in ids if id_ not in done]
            break
        placed.append(ready)
        done.add(ready)
    return placed
