"""A kind whose claim answers 403 is not served without a hold at the first refusal: the rules of a
kind dropped in with it reach the API server's authorizer a moment after the kind reaches the
engine.  Rules granted meanwhile let the engine take the claim; a 403 that lasts
``FORBIDDEN_GRACE`` (on the holds' own clock, driven here by hand) is believed, and the kind served
without a hold, as before."""

from __future__ import annotations

from engine.core.decisions.coordination import holding as holding_core
from engine.core.model import errors
from engine.core.offline import rbac
from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import holding
from tests.integration._engine import eventually
from tests.integration._holds import holder

GVK = ("example.com/v1", "Widget")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def holds_as(
    kube: Kube, user: str, namespace: str, clock: Clock, taken: list[tuple[str, str]]
) -> holding.KindHolds:
    """Holds of the kind as ``user``, on ``clock``; each sync moved on by more than a jittered
    retry period (2 s, up to 2.2 times) is a round of the kind."""
    return holding.KindHolds(
        kube.impersonating(user),
        lambda: [GVK],
        namespace=namespace,
        identity=user,
        heartbeat=f"{namespace}/{user}",
        heartbeat_duration=60,
        on_held=taken.append,
        clock=clock,
    )


def may_read_leases(kube: Kube, user: str, namespace: str) -> bool:
    try:
        kube.impersonating(user).request("GET", f"/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases")
    except errors.ApiError as refused:
        assert refused.status == 403, refused
        return False
    return True


def test_rules_granted_within_the_grace_let_the_engine_take_the_claim(kube: Kube, namespace: str) -> None:
    user, clock, taken = "engine-granted-late", Clock(), list[tuple[str, str]]()
    holds = holds_as(kube, user, namespace, clock, taken)

    holds.sync({GVK})  # 403: no rule on Leases yet
    assert not holds.holds(GVK) and taken == []

    verbs = ["get", "list", "create", "update"]
    rules = [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": verbs}]
    kube.create(rbac.role(rules, user, namespace))
    group = "rbac.authorization.k8s.io"
    kube.create(
        {
            "apiVersion": rbac.RBAC_API_VERSION,
            "kind": "RoleBinding",
            "metadata": {"name": user, "namespace": namespace},
            "roleRef": {"apiGroup": group, "kind": "Role", "name": user},
            "subjects": [{"apiGroup": group, "kind": "User", "name": user}],
        }
    )
    eventually(lambda: may_read_leases(kube, user, namespace), what="the rules to reach the authorizer")

    clock.now += holding.FORBIDDEN_GRACE / 2
    holds.sync({GVK})
    assert taken == [GVK]
    assert holder(kube, namespace, holding_core.lease_name(*GVK)) == user
    holds.stop()


def test_a_403_that_lasts_the_grace_serves_the_kind_without_a_hold(kube: Kube, namespace: str) -> None:
    clock, taken = Clock(), list[tuple[str, str]]()
    holds = holds_as(kube, "engine-never-granted", namespace, clock, taken)

    holds.sync({GVK})
    clock.now += holding.FORBIDDEN_GRACE / 2
    holds.sync({GVK})
    assert taken == []

    clock.now += holding.FORBIDDEN_GRACE / 2
    holds.sync({GVK})
    assert taken == [GVK] and holds.holds(GVK)
    holds.stop()
