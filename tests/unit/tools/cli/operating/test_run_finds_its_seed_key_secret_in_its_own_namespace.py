"""`stencil run` keeps its seed key in `stencil-seed-key` of its pod's namespace, else of its
leader Lease's, else of kube-system (where a cluster-scoped parent's references are read as its
account, too); `--seed-key-secret` names another, as NAMESPACE/NAME."""

from __future__ import annotations

import click
import pytest

from engine.tools.cli.operating.run import _home, _seed_secret


def test_the_pods_namespace_comes_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POD_NAMESPACE", "stencil-system")
    assert _seed_secret(None, _home("leases")) == ("stencil-system", "stencil-seed-key")


def test_outside_a_pod_the_lease_namespace_then_kube_system(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("POD_NAMESPACE", raising=False)
    assert _seed_secret(None, _home("leases")) == ("leases", "stencil-seed-key")
    assert _seed_secret(None, _home(None)) == ("kube-system", "stencil-seed-key")


def test_a_given_secret_is_namespace_and_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POD_NAMESPACE", "stencil-system")
    assert _seed_secret("ops/engine-key", _home(None)) == ("ops", "engine-key")
    for bad in ("engine-key", "/engine-key", "ops/"):
        with pytest.raises(click.BadParameter, match="NAMESPACE/NAME"):
            _seed_secret(bad, _home(None))
