"""The chart's engine beats on a Lease it may write: without leader election the chart's own
Lease, by name (with it, the leader Lease is the heartbeat and no flag is passed); and it may read
the heartbeat any other engine's claim names, by ``get`` alone: cluster-wide, or in the kinds'
Lease namespace for an install limited to some namespaces."""

from __future__ import annotations

import pytest

from engine.core.offline import rbac
from tests.unit._chart import FULLNAME, flags, of_kind, pod, render


def test_without_leader_election_the_heartbeat_is_the_charts_lease_which_it_may_write() -> None:
    documents = render()
    args = pod(documents)["containers"][0]["args"]
    (lease,) = flags(args, "--leader-elect-lease-name") or [f"{FULLNAME}-leader"]

    assert flags(args, "--heartbeat-lease") == [f"$(POD_NAMESPACE)/{lease}"]
    (engine,) = (r for k, r in of_kind(documents, "Role").items() if k.endswith(f"/{FULLNAME}-engine"))
    assert any(
        lease in rule.get("resourceNames", []) and "update" in rule["verbs"] for rule in engine["rules"]
    )


def test_with_leader_election_the_leader_lease_is_the_heartbeat() -> None:
    args = pod(render("leaderElection.enabled=true"))["containers"][0]["args"]

    assert flags(args, "--leader-elect-lease-name") and not flags(args, "--heartbeat-lease")


@pytest.mark.parametrize(
    ("settings", "kind", "key"),
    [
        ((), "ClusterRole", f"{FULLNAME}-heartbeats"),
        (("watchNamespace=team-a",), "Role", f"team-a/{FULLNAME}-heartbeats"),
    ],
    ids=["cluster-wide", "watching-some"],
)
def test_the_engine_may_get_any_heartbeat_and_do_nothing_else_with_it(
    settings: tuple[str, ...], kind: str, key: str
) -> None:
    documents = render(*settings)

    assert of_kind(documents, kind)[key]["rules"] == rbac.heartbeat_rules()
    binding = of_kind(documents, f"{kind}Binding")[key]
    assert (binding["roleRef"]["kind"], binding["roleRef"]["name"]) == (kind, f"{FULLNAME}-heartbeats")
