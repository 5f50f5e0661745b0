"""A golden file may write ``${ANY}`` for a value that differs on every run (a name made from a
hash of the parent's uid): alone it matches any value, within a string any text in its place.
The live children then give the golden file's own text, so they pass, and ``update`` keeps the
marks; a value outside what a mark allows still fails."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from engine.tools import kindtest

GOLDEN = """\
---
apiVersion: v1
data:
  token: ${ANY}
  url: http://cfg-${ANY}.svc:80
kind: ConfigMap
metadata:
  name: cfg-${ANY}
  namespace: ${NAMESPACE}
"""


def live(suffix: str, token: Any, port: int = 80) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"cfg-{suffix}", "namespace": "${NAMESPACE}"},
        "data": {"token": token, "url": f"http://cfg-{suffix}.svc:{port}"},
    }


def compared(tmp_path: Path, form: dict[str, Any]) -> list[str]:
    golden = tmp_path / "example.children.yaml"
    golden.write_text(GOLDEN)
    text = kindtest.golden_text(kindtest.marked([form], yaml.safe_load_all(GOLDEN)))
    return kindtest.compare_children(golden, text)[0]


def test_any_mark_in_a_golden_file_matches_a_value_that_differs_per_run(tmp_path: Path) -> None:
    assert compared(tmp_path, live("3f9a2c", "s3cr3t")) == []
    assert compared(tmp_path, live("77e0b1", {"nested": [1, 2]})) == []


def test_a_value_outside_the_mark_still_fails(tmp_path: Path) -> None:
    problems = compared(tmp_path, live("3f9a2c", "s3cr3t", port=81))

    assert len(problems) == 1 and 'data.url: expected "http://cfg-${ANY}.svc:80"' in problems[0]


def test_marks_match_only_what_they_stand_for() -> None:
    assert kindtest.matches("${ANY}", 3)
    assert kindtest.matches("a-${ANY}-z", "a--z")
    assert not kindtest.matches("a-${ANY}-z", "b-1-z")
    assert not kindtest.matches("a-.*", "a-1")
