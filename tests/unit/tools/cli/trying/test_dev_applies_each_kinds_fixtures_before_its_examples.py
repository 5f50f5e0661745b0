"""``stencil dev`` applies a kind's fixtures before its examples, as ``stencil test`` does:
``tests/fixtures.yaml`` once, before every example, and ``tests/<example>.fixtures.yaml``
just before its example."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.tools.cli.trying import dev
from tests.unit import _lintkinds

FIXTURE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n"


def test_dev_applies_the_kinds_fixtures_then_each_examples_own_before_it(tmp_path: Path) -> None:
    examples = {"a.yaml": _lintkinds.EXAMPLE, "b.yaml": _lintkinds.EXAMPLE.replace("small", "big")}
    folder = _lintkinds.kind_folder(tmp_path, {}, examples=examples)
    tests = folder / "tests"
    tests.mkdir()
    (tests / "fixtures.yaml").write_text(FIXTURE.format(name="shared"))
    (tests / "b.fixtures.yaml").write_text(FIXTURE.format(name="for-b"))

    files = dev.applied_files(kinds.load_kind(folder))

    assert files == [
        tests / "fixtures.yaml",
        folder / "examples" / "a.yaml",
        tests / "b.fixtures.yaml",
        folder / "examples" / "b.yaml",
    ]


def test_a_kind_without_fixtures_applies_its_examples_alone(tmp_path: Path) -> None:
    folder = _lintkinds.kind_folder(tmp_path, {})

    assert dev.applied_files(kinds.load_kind(folder)) == [folder / "examples" / "small.yaml"]
