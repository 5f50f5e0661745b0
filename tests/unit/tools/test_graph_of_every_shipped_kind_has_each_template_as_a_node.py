"""``stencil graph`` of every kind under templates/ has the parent and one node a template, each with
the edges its waits make, in DOT, in Mermaid, and (where Graphviz is installed) in the SVG it draws."""

from __future__ import annotations

import html
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.core.model import kinds
from engine.tools import cli
from tests.unit import _pictures

ROOT = Path(__file__).resolve().parents[3] / "templates"
FOLDERS = kinds.kind_folders(ROOT)


def _expected(folder: Path) -> tuple[set[str], set[tuple[str, str]]]:
    kind = kinds.load_kind(folder)
    names = {kind.kind, *(template.id for template in kind.templates)}
    waits = {(needed, template.id) for template in kind.templates for needed in template.waits_for}
    return names, waits | {(kind.kind, template.id) for template in kind.templates}


def test_the_shipped_kinds_are_all_found() -> None:
    assert {folder.name for folder in FOLDERS} >= {
        "deploywebservice",
        "guestbook",
        "mysqlcluster",
        "network",
        "playbook",
    }


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda folder: folder.name)
@pytest.mark.parametrize("form", ["dot", "mermaid"])
def test_every_template_is_a_node_with_its_edges(folder: Path, form: str) -> None:
    result = CliRunner().invoke(cli.main, ["graph", "-o", form, str(folder)])

    assert result.exit_code == 0, result.output
    nodes = _pictures.dot_nodes(result.stdout) if form == "dot" else _pictures.mermaid_nodes(result.stdout)
    edges = _pictures.dot_edges(result.stdout) if form == "dot" else _pictures.mermaid_edges(result.stdout)
    names, waits = _expected(folder)
    assert names <= {lines[0] for lines in nodes.values()}
    assert waits <= {(source, target) for source, target, _ in edges}


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
@pytest.mark.parametrize("folder", FOLDERS, ids=lambda folder: folder.name)
def test_the_svg_graphviz_draws_names_every_template(folder: Path, tmp_path: Path) -> None:
    picture = tmp_path / "kind.svg"

    result = CliRunner().invoke(cli.main, ["graph", "-o", "svg", "--output", str(picture), str(folder)])

    assert result.exit_code == 0, result.output
    svg = html.unescape(picture.read_text())  # Graphviz writes a - as &#45;
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    for name in _expected(folder)[0]:
        assert f">{name}</text>" in svg
