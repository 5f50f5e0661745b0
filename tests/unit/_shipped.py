"""The shipped CRDs' schemas, their kinds' examples and the children those render, and many near
variants of each, for the tests that hold a fast check to the full one it stands in for.

``variants`` of a CR: the CR itself, then each field (and list item) replaced in turn by
each of a range of values that schemas and rules refuse or accept at their edges, removed,
or given an unknown neighbour.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from engine.core.model import kinds
from engine.core.offline import admission
from engine.core.templating import rendering

ROOT = Path(__file__).resolve().parents[2]

EDGES: list[Any] = [
    None,
    "",
    "yellow",
    "nginx 1.27",
    "10.0.0.1",
    "10.0.0.0/8",
    "300.1.1.1",
    "fd00::1",
    -1,
    0,
    1,
    65535,
    65536,
    2**40,
    2.0,
    2.5,
    True,
    "x" * 300,
    "Bad_Label!",
    [],
    {},
    ["a", "a"],
    {"a": 1},
]


def shipped_crds() -> admission.OfflineCrds:
    """The CRDs the project ships: those of crds/ and those the kinds under templates/ write."""
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    return admission.OfflineCrds.read(ROOT / "crds", loaded.values())


def schemas() -> dict[str, dict[str, Any]]:
    """Each shipped CRD version's ``openAPIV3Schema``, by kind."""
    return {kind: schema for (_, kind), schema in sorted(shipped_crds().schemas.items())}


def examples(kind: str) -> list[dict[str, Any]]:
    """The CRs of ``kind`` among the shipped kinds' examples."""
    found = []
    for file in sorted((ROOT / "templates").glob("*/examples/*.yaml")):
        found += [
            d for d in yaml.safe_load_all(file.read_text()) if isinstance(d, dict) and d.get("kind") == kind
        ]
    return found


def children() -> list[dict[str, Any]]:
    """Every child the shipped kinds render for their examples, given their CRDs' defaults."""
    crds = shipped_crds()
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    return [
        child
        for _, kind in sorted(loaded.items())
        for child in rendering.example_children(kind, crds.defaulted)
    ]


def variants(value: Any) -> Iterator[Any]:
    yield value
    for path in _paths(value, ()):
        for edge in EDGES:
            yield _replaced(value, path, edge)
        yield _replaced(value, path, _REMOVED)
    for path in _paths(value, ()):
        if isinstance(_at(value, path), dict):
            yield _replaced(value, (*path, "unknownField"), "x")


_REMOVED = object()


def _paths(value: Any, path: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        value = value[part]
    return value


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    changed = copy.deepcopy(value)
    container = _at(changed, path[:-1])
    if new is _REMOVED:
        del container[path[-1]]
    else:
        container[path[-1]] = copy.deepcopy(new)
    return changed
