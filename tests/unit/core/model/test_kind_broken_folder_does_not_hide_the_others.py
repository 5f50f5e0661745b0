"""load_kinds reports each broken folder on its own, with its parent when kind.yaml names it."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError


def kind_yaml(parent_kind: str, extra: str = "") -> str:
    return (
        f"apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\nparent:\n  apiVersion: example.com/v1\n"
        f"  kind: {parent_kind}\n{extra}"
    )


def folder(root: Path, name: str, text: str | None) -> None:
    (root / name).mkdir()
    if text is not None:
        (root / name / "kind.yaml").write_text(text)


def test_good_and_broken_folders_are_reported_apart(tmp_path: Path) -> None:
    folder(tmp_path, "good", kind_yaml("Good"))
    folder(tmp_path, "bad-rule", kind_yaml("BadRule", "status:\n  fields:\n    x: 'sepc.y'\n"))
    folder(tmp_path, "bad-yaml", "parent: [\n")
    folder(tmp_path, "no-kind-file", None)
    folder(tmp_path, "_partials", None)
    loaded, broken = kinds.load_kinds(tmp_path)
    assert list(loaded) == ["good"]
    assert sorted(broken) == ["bad-rule", "bad-yaml", "no-kind-file"]
    assert (broken["bad-rule"].api_version, broken["bad-rule"].kind) == ("example.com/v1", "BadRule")
    assert "unknown name sepc" in str(broken["bad-rule"].error)
    assert (broken["bad-yaml"].api_version, broken["bad-yaml"].kind) == (None, None)
    assert broken["bad-yaml"].directory == tmp_path / "bad-yaml"


def test_two_folders_serving_one_parent_are_both_refused(tmp_path: Path) -> None:
    folder(tmp_path, "one", kind_yaml("Same"))
    folder(tmp_path, "two", kind_yaml("Same"))
    loaded, broken = kinds.load_kinds(tmp_path)
    assert loaded == {}
    assert "served by more than one kind folder: one, two" in str(broken["one"].error)
    assert broken["two"].kind is None  # which folder is wrong is not ours to guess


def test_a_missing_templates_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KindError, match="does not exist"):
        kinds.load_kinds(tmp_path / "nowhere")


def test_two_folders_serving_one_parent_in_two_versions_are_both_refused(tmp_path: Path) -> None:
    folder(tmp_path, "one", kind_yaml("Same"))
    folder(tmp_path, "two", kind_yaml("Same").replace("example.com/v1", "example.com/v2"))
    loaded, broken = kinds.load_kinds(tmp_path)
    assert loaded == {}
    assert "Same (example.com) is served by more than one kind folder: one, two" in str(broken["two"].error)
