"""Guestbook's order (after: in its kind.yaml) on a real control plane with a kwok node: while the
Redis leader cannot become Available, neither the followers nor the frontend are created and the
Guestbook says what waits for what; once the node takes pods, each tier is created only after the
tiers it waits for are Available, and the Guestbook becomes Ready.

"After" is the order in which the API server wrote the Deployments, as a watch reports it: their
timestamps have whole seconds, so a tier created in the second its dependency became Available
could as well have come first."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine
from tests.integration._recording import Recording, recording

pytestmark = pytest.mark.nodes

EXAMPLES = ROOT / "templates" / "guestbook" / "examples"
NAME = "guestbook-sample"


def available(deployment: dict[str, Any]) -> bool:
    found = conditions(deployment).get("Available")
    return bool(found and found["status"] == "True")


def seen_available(record: Recording, name: str) -> Callable[[], bool]:
    return lambda: any(available(obj) for _, obj in record.of(name))


def test_frontend_is_created_only_after_the_redis_deployments_are_available(
    kube: Kube, namespace: str, crds_installed: list[str], cordoned: list[str]
) -> None:
    guestbooks = kube.resource("webapp.my.domain/v1", "Guestbook")
    deployments: Resource = kube.resource("apps/v1", "Deployment")
    sample = next(d for d in manifests.read(manifests.yaml_files(EXAMPLES)) if d["metadata"]["name"] == NAME)

    def deployment(tier: str) -> dict[str, Any] | None:
        return kube.get(deployments, f"{NAME}-{tier}", namespace)

    with (
        recording(kube, deployments, namespace) as record,
        running_engine(kube, ROOT / "templates", namespace),
    ):
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
            f"{NAME}-{tier}" for tier in ("redis-leader", "redis-follower", "frontend")
        )
        for tier in (leader, follower, frontend):
            eventually(seen_available(record, tier), what=f"the watch to see {tier} Available")

    def became_available(name: str) -> int:
        return record.first(
            f"{name} Available", lambda _, obj: obj["metadata"]["name"] == name and available(obj)
        )

    def created(name: str) -> int:
        return record.first(
            f"{name} created", lambda kind, obj: obj["metadata"]["name"] == name and kind == "ADDED"
        )

    # Each tier was written after the tiers it waits for became Available, in the server's order.
    assert became_available(leader) < created(follower)
    assert max(became_available(leader), became_available(follower)) < created(frontend)
