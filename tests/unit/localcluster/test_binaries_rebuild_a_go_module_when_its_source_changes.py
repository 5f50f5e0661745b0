"""A Go module of the checkout (the benchmark's Go floor) is cached by the digest of its source:
an edit to its Go files, go.mod or go.sum makes another cache folder, anything else does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.localcluster import binaries


@pytest.fixture
def module(tmp_path: Path) -> Path:
    (tmp_path / "go.mod").write_text("module example.local/floor\n\ngo 1.24\n")
    (tmp_path / "go.sum").write_text("")
    (tmp_path / "main.go").write_text("package main\n\nfunc main() {}\n")
    return tmp_path


@pytest.mark.parametrize("name", ["main.go", "go.mod", "go.sum"])
def test_an_edit_to_the_module_changes_its_digest(module: Path, name: str) -> None:
    before = binaries.module_digest(module)
    (module / name).write_text((module / name).read_text() + "// edited\n")
    assert binaries.module_digest(module) != before


def test_a_file_beside_the_module_leaves_its_digest(module: Path) -> None:
    before = binaries.module_digest(module)
    (module / "README.md").write_text("notes\n")
    assert binaries.module_digest(module) == before


def test_a_folder_without_go_mod_is_refused(module: Path) -> None:
    (module / "go.mod").unlink()
    with pytest.raises(binaries.BuildError, match=r"no go\.mod"):
        binaries.module_digest(module)


def test_a_cached_build_is_found_without_building(
    module: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STENCIL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("STENCIL_FLOOR", raising=False)
    monkeypatch.setattr(binaries, "go_version", lambda: "go1.0")
    built = tmp_path / "cache" / "bin" / f"floor-{binaries.module_digest(module)}-go1.0" / "floor"
    built.parent.mkdir(parents=True)
    built.write_text("")
    assert binaries.ensure_module("floor", module) == built
