"""Reading DOT and Mermaid text back as nodes and edges, for tests that check a picture's structure."""

from __future__ import annotations

import re

_DOT_NODE = re.compile(r'^  "((?:[^"\\]|\\.)*)" \[label="((?:[^"\\]|\\.)*)"', re.M)
_DOT_EDGE = re.compile(r'^  "((?:[^"\\]|\\.)*)" -> "((?:[^"\\]|\\.)*)"(?: \[label="([^"]*)")?', re.M)
_MERMAID_NODE = re.compile(r'^  (n\d+)[\[({/]+"([^"]*)"', re.M)
_MERMAID_EDGE = re.compile(r'^  (n\d+) [-.>]+(?:\|"([^"]*)"\|)? (n\d+)$', re.M)


def dot_nodes(text: str) -> dict[str, list[str]]:
    """Each node's key and the lines of its label."""
    return {key: label.split("\\n") for key, label in _DOT_NODE.findall(text)}


def dot_edges(text: str) -> set[tuple[str, str, str]]:
    """Each edge as (first line of the source's label, of the target's, the edge's label)."""
    first = {key: lines[0] for key, lines in dot_nodes(text).items()}
    return {(first[a], first[b], label) for a, b, label in _DOT_EDGE.findall(text)}


def mermaid_nodes(text: str) -> dict[str, list[str]]:
    return {key: label.split("<br/>") for key, label in _MERMAID_NODE.findall(text)}


def mermaid_edges(text: str) -> set[tuple[str, str, str]]:
    first = {key: lines[0] for key, lines in mermaid_nodes(text).items()}
    return {(first[a], first[b], label) for a, label, b in _MERMAID_EDGE.findall(text)}
