"""A picture of boxes and arrows, written as Graphviz DOT or as Mermaid text.

``stencil graph`` draws a kind (``graphs``) and ``stencil tree`` a parent's family
(``family``); both build a ``Picture`` and leave its spelling to this module, so that
the two languages' quoting rules live in one place.  DOT is what Graphviz turns into
an SVG or PNG (``crossplane trace -o dot`` writes the same); Mermaid is what GitHub
renders inside a Markdown code block, for a README.

A node's ``role`` says what it stands for (``parent``, ``template``, ``reference``,
``related``, ``child``) and picks its shape; its ``tone`` (``ok``, ``waiting``,
``failed``, ``missing``, or none) picks its colour.  An edge's ``style`` is ``solid``,
``dashed`` or ``dotted``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# role -> (DOT shape, Mermaid opening and closing brackets)
_SHAPES: dict[str, tuple[str, str, str]] = {
    "parent": ("doubleoctagon", "{{", "}}"),
    "template": ("box", "[", "]"),
    "child": ("box", "[", "]"),
    "reference": ("cylinder", "[(", ")]"),
    "related": ("note", "[/", "/]"),
}
# tone -> (DOT fill colour, Mermaid fill colour)
_TONES: dict[str, str] = {
    "ok": "#c8e6c9",
    "waiting": "#ffe0b2",
    "failed": "#ffcdd2",
    "missing": "#eeeeee",
}


@dataclass(frozen=True)
class Node:
    """A box: ``key`` is unique in its picture, ``lines`` are its label, one a line."""

    key: str
    lines: tuple[str, ...]
    role: str = "template"
    tone: str = ""


@dataclass(frozen=True)
class Edge:
    """An arrow from the node ``source`` to the node ``target``, said by ``label``."""

    source: str
    target: str
    label: str = ""
    style: str = "solid"


@dataclass(frozen=True)
class Picture:
    title: str
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]


def dot(picture: Picture) -> str:
    """The picture as a Graphviz ``digraph``, left to right."""
    out = [
        f"digraph {_dot_quoted(picture.title)} {{",
        "  rankdir=LR;",
        '  node [fontname="Helvetica", fontsize=11, style="rounded,filled", fillcolor="#ffffff"];',
        '  edge [fontname="Helvetica", fontsize=9];',
    ]
    for node in picture.nodes:
        shape = _SHAPES.get(node.role, _SHAPES["template"])[0]
        fill = f", fillcolor={_dot_quoted(_TONES[node.tone])}" if node.tone in _TONES else ""
        label = "\\n".join(_dot_escaped(line) for line in node.lines)
        out.append(f'  {_dot_quoted(node.key)} [label="{label}", shape={shape}{fill}];')
    for edge in picture.edges:
        attributes = [f"label={_dot_quoted(edge.label)}"] if edge.label else []
        attributes += [f"style={edge.style}"] if edge.style != "solid" else []
        shown = f" [{', '.join(attributes)}]" if attributes else ""
        out.append(f"  {_dot_quoted(edge.source)} -> {_dot_quoted(edge.target)}{shown};")
    out.append("}")
    return "\n".join(out) + "\n"


def mermaid(picture: Picture) -> str:
    """The picture as a Mermaid ``flowchart``, left to right (GitHub renders it in a ```mermaid block)."""
    ids = {node.key: f"n{index}" for index, node in enumerate(picture.nodes)}
    out = ["flowchart LR"]
    for node in picture.nodes:
        _, opening, closing = _SHAPES.get(node.role, _SHAPES["template"])
        label = "<br/>".join(_mermaid_escaped(line) for line in node.lines)
        out.append(f'  {ids[node.key]}{opening}"{label}"{closing}')
    for edge in picture.edges:
        arrow = {"dashed": "-.->", "dotted": "-.->"}.get(edge.style, "-->")
        label = f'|"{_mermaid_escaped(edge.label)}"|' if edge.label else ""
        out.append(f"  {ids[edge.source]} {arrow}{label} {ids[edge.target]}")
    for tone, colour in _TONES.items():
        toned = [ids[node.key] for node in picture.nodes if node.tone == tone]
        if toned:
            out.append(f"  classDef {tone} fill:{colour}")
            out.append(f"  class {','.join(toned)} {tone}")
    return "\n".join(out) + "\n"


def _dot_escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _dot_quoted(text: str) -> str:
    return f'"{_dot_escaped(text)}"'


# Mermaid reads entity codes inside a quoted label; these characters would end it or open markup.
_MERMAID_ENTITIES = {'"': "#quot;", "<": "#lt;", ">": "#gt;", "#": "#35;", "{": "#123;", "}": "#125;"}
_MERMAID_SPECIAL = re.compile("|".join(re.escape(c) for c in _MERMAID_ENTITIES))


def _mermaid_escaped(text: str) -> str:
    return _MERMAID_SPECIAL.sub(lambda match: _MERMAID_ENTITIES[match.group()], text)
