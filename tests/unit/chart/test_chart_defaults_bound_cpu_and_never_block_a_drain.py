"""The chart's defaults: a CPU limit, and a PodDisruptionBudget only with more than one replica,
as maxUnavailable 1, so that a node drain can always evict a replica."""

from __future__ import annotations

from tests.unit._chart import of_kind, pod, render, template


def test_the_engine_has_a_cpu_limit() -> None:
    assert pod(render())["containers"][0]["resources"]["limits"]["cpu"]


def test_a_budget_never_equals_the_replicas() -> None:
    assert of_kind(render(), "PodDisruptionBudget") == {}
    for replicas in (2, 3):
        (pdb,) = of_kind(render(f"replicaCount={replicas}"), "PodDisruptionBudget").values()
        assert pdb["spec"]["maxUnavailable"] == 1
        assert "minAvailable" not in pdb["spec"]


def test_a_budget_of_no_disruption_is_refused() -> None:
    assert template("replicaCount=2", "podDisruptionBudget.maxUnavailable=0").returncode != 0
