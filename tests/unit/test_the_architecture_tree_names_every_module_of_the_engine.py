"""docs/architecture.md draws the engine as a tree, one line a module or package: every module
and package under engine/ is in it, at its place, and everything it names is there, so the tree
stays true as modules are split, moved or added."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "engine"
ARCHITECTURE = ROOT / "docs" / "architecture.md"
# A line of the tree: the branches above it, then `├── ` or `└── `, the name, and its concern.
ENTRY = re.compile(r"^(?P<above>(?:│   |    )*)[├└]── (?P<name>\S+)(?:\s+(?P<concern>\S.*))?$")


def drawn() -> dict[str, str]:
    """Each path the tree names, relative to engine/ (a folder ends in `/`), with its concern."""
    text = ARCHITECTURE.read_text()
    start = text.index("```\nengine/\n") + len("```\nengine/\n")
    lines = text[start : text.index("\n```", start)].splitlines()
    named: dict[str, str] = {}
    folders: list[str] = []
    for line in lines:
        entry = ENTRY.match(line)
        if entry is None:  # a concern carried onto a second line
            continue
        depth = len(entry["above"]) // 4
        folders[depth:] = []
        assert len(folders) == depth, f"{line!r} hangs under no folder"
        path = "".join(folders) + entry["name"]
        named[path] = entry["concern"] or ""
        if path.endswith("/"):
            folders.append(entry["name"])
    return named


def modules() -> set[str]:
    """Every module and package under engine/ (a package by its folder, its __init__ with it)."""
    found = set()
    for path in ENGINE.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        relative = path.relative_to(ENGINE)
        if path.name == "__init__.py" and relative.parent != Path("."):
            found.add(f"{relative.parent}/")
        else:  # engine/__init__.py too: the front door
            found.add(str(relative))
    return found


def test_every_module_and_package_of_the_engine_is_in_the_tree() -> None:
    missing = sorted(modules() - drawn().keys())

    assert not missing, f"docs/architecture.md's tree lacks {missing}"


def test_everything_the_tree_names_is_under_engine() -> None:
    gone = sorted(path for path in drawn() if not (ENGINE / path).exists())

    assert not gone, f"docs/architecture.md's tree names what engine/ does not hold: {gone}"


def test_every_module_in_the_tree_says_its_concern() -> None:
    silent = sorted(path for path, concern in drawn().items() if not concern)

    assert not silent, f"docs/architecture.md's tree says nothing of {silent}"
