"""The chart's engine role follows the kinds it serves: kinds.only grants those kinds' rules alone,
kinds.install=false none but the common ones, and sharding adds patch on the served parents, as
``stencil rbac --shards`` derives it."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.core.offline import rbac
from engine.core.offline.admission import OfflineCrds
from tests.unit._chart import FULLNAME, of_kind, render
from tests.unit.chart import test_chart_helm as chart

ROOT = Path(__file__).resolve().parents[3]


def _derived(names: list[str] | None, *, sharded: bool = False) -> set[tuple[str, str, tuple[str, ...], str]]:
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    chosen = [k for n, k in loaded.items() if names is None or n in names]
    resources = rbac.offline_resources(ROOT / "crds", loaded.values())
    documents = rbac.documents(
        chosen,
        resources,
        defaults=OfflineCrds.read(ROOT / "crds", loaded.values()).defaulted,
        sharded=sharded,
    )
    return chart.grants(documents[0]["rules"])


def _granted(*settings: str) -> set[tuple[str, str, tuple[str, ...], str]]:
    return chart.grants(of_kind(render(*settings), "ClusterRole")[FULLNAME]["rules"])


def test_kinds_only_grants_that_kinds_rules_alone() -> None:
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    first = sorted(loaded)[0]
    assert _granted(f"kinds.only[0]={first}") == _derived([first])
    assert _granted(f"kinds.only[0]={first}") < _granted()


def test_no_kinds_installed_grants_only_the_common_rules() -> None:
    assert _granted("kinds.install=false") == _derived([])


def test_sharding_adds_patch_on_the_parents() -> None:
    sharded = _granted("replicaCount=3", "sharding.enabled=true")
    assert sharded == _derived(None, sharded=True)
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    resources = rbac.offline_resources(ROOT / "crds", loaded.values())
    for kind in loaded.values():
        group, plural = resources(kind.api_version, kind.kind)
        assert (group, plural, (), "patch") in sharded
