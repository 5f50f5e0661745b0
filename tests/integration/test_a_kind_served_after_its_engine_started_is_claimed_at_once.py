"""A kind is claimed as soon as the engine serves it, not at the claims' next round: its parents
wait for the claim, so the round's interval would be added to every engine's start (the kinds are
loaded in the background, after the claims began).  The round here is a minute long, so only the
wake can explain a claim within seconds."""

from __future__ import annotations

import time

from engine.core.decisions.coordination import holding as holding_core
from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import holding
from tests.integration._engine import eventually
from tests.integration._holds import holder

GVK = ("example.com/v1", "Widget")
ROUND = 60.0


def test_a_kind_served_after_the_claims_began_is_claimed_at_once(kube: Kube, namespace: str) -> None:
    served: list[tuple[str, str]] = []
    taken: list[tuple[str, str]] = []
    rounds: list[float] = []

    def kinds() -> list[tuple[str, str]]:
        rounds.append(time.monotonic())
        return list(served)

    holds = holding.KindHolds(
        kube,
        kinds,
        namespace=namespace,
        identity="engine-w",
        heartbeat=f"{namespace}/engine-w",
        heartbeat_duration=60,
        on_held=taken.append,
        interval=ROUND,
    )
    holds.start()
    try:
        eventually(lambda: bool(rounds), what="the first round, with no kind")
        served.append(GVK)
        woken = time.monotonic()
        holds.wake()
        eventually(lambda: taken == [GVK], timeout=ROUND / 2, what="the kind to be claimed")
        assert time.monotonic() - woken < ROUND / 4
        assert holder(kube, namespace, holding_core.lease_name(*GVK)) == "engine-w"
    finally:
        holds.stop()
