"""The chart tells the engine where its kinds' Leases are (kube-system, or the first watched
namespace, or kindLeases.namespace) and grants it there what ``stencil rbac`` derives: create,
and get/update of each kind's Lease by name."""

from __future__ import annotations

import pytest

from engine.core.model import kinds
from engine.core.offline import rbac
from tests.unit._chart import CHART, FULLNAME, NAMESPACE, flags, of_kind, pod, render

ROOT = CHART.parents[1]


@pytest.mark.parametrize(
    ("settings", "where"),
    [
        ((), "kube-system"),
        (("watchNamespaces={team-b,team-a}",), "team-b"),
        (("watchNamespace=team-a", "kindLeases.namespace=coordination"), "coordination"),
    ],
    ids=["every-namespace", "watching-some", "given"],
)
def test_the_engine_is_told_and_granted_the_kinds_lease_namespace(
    settings: tuple[str, ...], where: str
) -> None:
    documents = render(*settings)
    args = pod(documents)["containers"][0]["args"]
    loaded, _ = kinds.load_kinds(ROOT / "templates")

    assert flags(args, "--kind-lease-namespace") == [where]
    role = of_kind(documents, "Role")[f"{where}/{FULLNAME}-kinds"]
    assert role["rules"] == rbac.kind_lease_rules(loaded.values())
    binding = of_kind(documents, "RoleBinding")[f"{where}/{FULLNAME}-kinds"]
    assert (binding["roleRef"]["kind"], binding["roleRef"]["name"]) == ("Role", f"{FULLNAME}-kinds")
    assert (binding["subjects"][0]["name"], binding["subjects"][0]["namespace"]) == (FULLNAME, NAMESPACE)
