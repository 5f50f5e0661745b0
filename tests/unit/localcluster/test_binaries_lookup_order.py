"""Binaries the user already has win over the cache: STENCIL_<NAME>, then KUBEBUILDER_ASSETS."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.localcluster import binaries


@pytest.fixture
def cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("STENCIL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("KUBEBUILDER_ASSETS", raising=False)
    for name in ("STENCIL_KUBE_APISERVER", "STENCIL_ETCD"):
        monkeypatch.delenv(name, raising=False)
    built = binaries.component_dir(binaries.KUBERNETES, "go1.0") / "kube-apiserver"
    built.parent.mkdir(parents=True)
    built.write_text("")
    return built


def test_the_cache_is_used_when_nothing_else_is_given(cached: Path) -> None:
    assert binaries.find("kube-apiserver") == cached


def test_kubebuilder_assets_come_before_the_cache(
    cached: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assets = tmp_path / "assets"
    assets.mkdir()
    (assets / "kube-apiserver").write_text("")
    monkeypatch.setenv("KUBEBUILDER_ASSETS", str(assets))
    assert binaries.find("kube-apiserver") == assets / "kube-apiserver"


def test_an_explicit_path_comes_first(cached: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    explicit = tmp_path / "my-apiserver"
    explicit.write_text("")
    monkeypatch.setenv("KUBEBUILDER_ASSETS", str(tmp_path))
    monkeypatch.setenv("STENCIL_KUBE_APISERVER", str(explicit))
    assert binaries.find("kube-apiserver") == explicit


def test_an_explicit_path_that_is_not_a_file_is_an_error(
    cached: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STENCIL_KUBE_APISERVER", "/nonexistent/kube-apiserver")
    with pytest.raises(binaries.BuildError, match="STENCIL_KUBE_APISERVER"):
        binaries.find("kube-apiserver")


def test_a_binary_found_nowhere_is_none(cached: Path) -> None:
    assert binaries.find("etcd") is None
