"""A live child that differs from its golden file is reported as ``file:line: Kind name: field``,
with a unified diff of the two texts."""

from __future__ import annotations

from pathlib import Path

from engine.tools import kindtest
from tests.unit._live import live_deployment


def golden(namespace: str, uid: str, replicas: int) -> str:
    live = live_deployment(namespace, uid, replicas=replicas)
    return kindtest.golden_text([kindtest.golden_form(live, namespace, [uid])])


def test_children_mismatch_names_file_line_and_field(tmp_path: Path) -> None:
    file = tmp_path / "web.children.yaml"
    file.write_text(golden("ns-a", "uid-a", replicas=2))
    replicas_line = file.read_text().splitlines().index("  replicas: 2") + 1

    problems, diff = kindtest.compare_children(file, golden("ns-b", "uid-b", replicas=3))

    assert problems == [
        f"{file}:{replicas_line}: Deployment web-deployment: spec.replicas: expected 2, live 3"
    ]
    assert "-  replicas: 2\n+  replicas: 3" in diff


def test_children_that_match_have_no_problems(tmp_path: Path) -> None:
    file = tmp_path / "web.children.yaml"
    file.write_text(golden("ns-a", "uid-a", replicas=2))

    assert kindtest.compare_children(file, golden("ns-b", "uid-b", replicas=2)) == ([], "")


def test_a_missing_golden_file_says_how_to_write_it(tmp_path: Path) -> None:
    problems, _ = kindtest.compare_children(tmp_path / "none.yaml", golden("ns", "uid", replicas=1))

    assert len(problems) == 1 and "--update" in problems[0]
