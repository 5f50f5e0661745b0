"""The branch walking: which ``{% if %}`` and ``{% for %}`` bodies of the templates no example takes.

What the syntax tree cannot tell, which branches the examples never take, comes
from rendering the examples with a line tracer on the compiled templates
(``examples.render_traced``): the Python lines of each branch body are learnt
from Jinja's own code generator (``engine.core.jinja.block_lines``), so a body of
plain text counts as well as one of expressions.  A body not taken stands for every branch inside it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass

from jinja2 import nodes
from jinja2.exceptions import TemplateSyntaxError

from engine.core import jinja
from engine.core.model import kinds
from engine.core.templating import sandbox


@dataclass(frozen=True)
class Branch:
    """One body a template chooses between: where it starts, and what to say when no example takes it."""

    line: int
    what: str
    body: list[nodes.Node]
    test: nodes.Node | None = None  # of an {% if %}'s own body: what a parent must satisfy to take it


def _branches_at(node: nodes.Node) -> list[Branch]:
    """The bodies an {% if %} (with its elifs and else) or a {% for %} (with its else) chooses between."""
    untaken = "no example takes this {% if %} branch"
    if isinstance(node, nodes.If):
        found = [Branch(node.lineno, untaken, node.body, node.test)]
        found += [Branch(e.lineno, "no example takes this {% elif %} branch", e.body) for e in node.elif_]
        if node.else_:
            what = f"no example takes the {{% else %}} branch of the {{% if %}} at line {node.lineno}"
            found.append(Branch(node.else_[0].lineno, what, node.else_))
        return found
    if isinstance(node, nodes.For):
        found = [Branch(node.lineno, "the body of this {% for %} runs for no example", node.body)]
        if node.else_:
            what = (
                f"no example takes the {{% else %}} of the {{% for %}} at line {node.lineno} (an empty loop)"
            )
            found.append(Branch(node.else_[0].lineno, what, node.else_))
        return found
    return []


def _untaken(body: Iterable[nodes.Node], taken: Callable[[Branch], bool]) -> Iterator[Branch]:
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


def _taken(blocks: Mapping[int, tuple[int, int]], ran: Sequence[int], branch: Branch) -> bool:
    if id(branch.body) not in blocks:
        return True  # no code of its own (optimised away): nothing to say about it
    start, end = blocks[id(branch.body)]
    return any(start < line <= end for line in ran)


def untaken_branches(
    kind: kinds.Kind, executed: Set[tuple[str, int]]
) -> Iterator[tuple[kinds.Template, Branch]]:
    """Each template branch that no line of ``executed`` (``render_traced``'s) ran, with its template."""
    environment = sandbox.make_environment(kind.sources)
    for template in kind.templates:
        file = str(template.path)
        try:
            tree = environment.parse(template.text, template.name, file)
            blocks = jinja.block_lines(environment, tree, template.name, file)
        except TemplateSyntaxError:
            continue  # check_templates reports it
        if blocks is None:
            continue
        ran = sorted(line for name, line in executed if name == file)
        for branch in _untaken(tree.body, functools.partial(_taken, blocks, ran)):
            yield template, branch
