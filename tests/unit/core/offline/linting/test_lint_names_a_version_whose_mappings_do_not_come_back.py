"""``stencil lint`` takes each example and a made-up object of each version to every other version
and back: a mapping that does not invert is an error at its version's ``convert:``, and one that
fails on a value its schema allows names the rule's line."""

from __future__ import annotations

import shutil
from pathlib import Path

from engine.core.offline.linting import ROUND_TRIP
from engine.tools import linter

WEBAPP = Path(__file__).resolve().parents[5] / "examples" / "webapp"
TAG = "spec.tag: \"spec.image.rpartition(':')[2]"


def _copy(tmp_path: Path, old: str, new: str) -> Path:
    folder = tmp_path / "webapp"
    shutil.copytree(WEBAPP, folder)
    kind_yaml = folder / "kind.yaml"
    text = kind_yaml.read_text()
    assert old in text
    kind_yaml.write_text(text.replace(old, new))
    return folder


def _line(folder: Path, text: str) -> int:
    return next(
        n for n, line in enumerate((folder / "kind.yaml").read_text().splitlines(), 1) if text in line
    )


def test_the_shipped_versions_come_back_as_they_were() -> None:
    assert [f for f in linter.lint([WEBAPP]) if f.check == ROUND_TRIP] == []


def test_a_tag_read_from_the_wrong_part_of_the_image_is_named(tmp_path: Path) -> None:
    folder = _copy(tmp_path, TAG, "spec.tag: \"spec.image.rpartition(':')[0]")
    found = [f for f in linter.lint([folder]) if f.check == ROUND_TRIP]
    assert found, "the broken mapping went unnoticed"
    assert {(f.severity, f.line) for f in found} == {("error", _line(folder, "convert:"))}
    assert any("shop.yaml" in f.message and "spec.image (through v1alpha1" in f.message for f in found)
    assert any("made up of every field of v1alpha1" in f.message for f in found)


def test_a_rule_that_fails_on_an_allowed_value_names_its_line(tmp_path: Path) -> None:
    folder = _copy(tmp_path, '{spec.image: "spec.repository ~', '{spec.image: "(1 // 0) ~ spec.repository ~')
    found = [f for f in linter.lint([folder]) if f.check == ROUND_TRIP]
    assert found and all(f.line == _line(folder, "- up: {spec.image:") for f in found)
    assert all("ZeroDivisionError" in f.message for f in found)
