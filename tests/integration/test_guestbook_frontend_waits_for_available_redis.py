"""Guestbook's order (after: in its kind.yaml) on a real control plane with a kwok node: while the
Redis leader cannot become Available, neither the followers nor the frontend are created and the
Guestbook says what waits for what; once the node takes pods, each tier is created only after the
tiers it waits for are Available, and the Guestbook becomes Ready."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from engine.runtime.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine

pytestmark = pytest.mark.nodes

EXAMPLES = ROOT / "templates" / "guestbook" / "examples"
NAME = "guestbook-sample"


@pytest.fixture
def cordoned(kube: Kube) -> Iterator[list[str]]:
    """Every node marked unschedulable, so no new pod starts, until the test uncordons them;
    uncordoned again on the way out whatever happens."""
    nodes = kube.resource("v1", "Node")
    names = [n["metadata"]["name"] for n in kube.list(nodes)[0]]
    assert names, "the local plane has no nodes"

    def schedulable(value: bool) -> None:
        for name in names:
            kube.patch_json(
                nodes, name, None, [{"op": "add", "path": "/spec/unschedulable", "value": not value}]
            )

    schedulable(False)
    try:
        yield names
    finally:
        schedulable(True)


def available_since(deployment: dict[str, Any] | None) -> str | None:
    """When the Deployment's Available condition last became True, or None while it is not."""
    found = conditions(deployment).get("Available")
    return found["lastTransitionTime"] if found and found["status"] == "True" else None


def test_frontend_is_created_only_after_the_redis_deployments_are_available(
    kube: Kube, namespace: str, crds_installed: list[str], cordoned: list[str]
) -> None:
    guestbooks = kube.resource("webapp.my.domain/v1", "Guestbook")
    deployments: Resource = kube.resource("apps/v1", "Deployment")
    sample = next(d for d in manifests.read(manifests.yaml_files(EXAMPLES)) if d["metadata"]["name"] == NAME)

    def deployment(tier: str) -> dict[str, Any] | None:
        return kube.get(deployments, f"{NAME}-{tier}", namespace)

    with running_engine(kube, ROOT / "templates", namespace):
        manifests.apply_all(kube, [sample], namespace)

        # No pod can start: the leader stays unavailable, and the Guestbook says who waits for it
        # (once the leader is created: before that, that it is not created yet).
        waiting = eventually(
            lambda: (
                (obj := kube.get(guestbooks, NAME, namespace))
                and conditions(obj).get("Ready", {}).get("reason") == "WaitingForDependencies"
                and "InProgress" in conditions(obj)["Ready"]["message"]
                and obj
            ),
            timeout=60,
            what="the Guestbook to report WaitingForDependencies",
        )
        message = conditions(waiting)["Ready"]["message"]
        assert "redis-follower waits for redis-leader (InProgress" in message, message
        assert "frontend waits for redis-leader (InProgress" in message, message
        assert deployment("redis-leader") is not None
        assert deployment("redis-follower") is None
        assert deployment("frontend") is None

        # Pods may start again: each tier follows the ones it waits for, and the Guestbook is Ready.
        nodes = kube.resource("v1", "Node")
        for name in cordoned:
            kube.patch_json(nodes, name, None, [{"op": "add", "path": "/spec/unschedulable", "value": False}])
        eventually(
            condition_is(kube, guestbooks, NAME, namespace, "Ready", "True"), timeout=120, what="Ready"
        )

    leader, follower, frontend = (
        deployment("redis-leader"),
        deployment("redis-follower"),
        deployment("frontend"),
    )
    assert leader is not None and follower is not None and frontend is not None
    leader_available, follower_available = available_since(leader), available_since(follower)
    assert leader_available is not None and follower_available is not None
    # RFC 3339 times in UTC compare as strings; an object is created at or after what it waited for.
    assert follower["metadata"]["creationTimestamp"] >= leader_available
    assert frontend["metadata"]["creationTimestamp"] >= max(leader_available, follower_available)
