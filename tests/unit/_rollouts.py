"""Parents as a rollout reads them: a status with a kind revision and conditions."""

from __future__ import annotations

from typing import Any

from engine.core.decisions.coordination import rollout
from engine.core.model.objects import Key

T0 = "2026-01-01T00:00:00Z"


def parent(
    name: str,
    revision: int | None,
    *,
    ready: str = "True",
    reason: str = "Ready",
    since: str = T0,
    generation: int = 1,
    observed: int = 1,
    more: tuple[dict[str, Any], ...] = (),
) -> dict[str, Any]:
    status: dict[str, Any] = {
        "observedGeneration": observed,
        "conditions": [{"type": "Ready", "status": ready, "reason": reason, "message": ""}, *more],
    }
    if revision is not None:
        status["kindRevision"] = {"number": revision, "since": since}
    return {"metadata": {"name": name, "namespace": "ns", "generation": generation}, "status": status}


def standings(count: int, revision: int, **kwargs: Any) -> list[rollout.Standing]:
    return [
        rollout.standing(Key("ns", f"p-{i:03d}"), parent(f"p-{i:03d}", revision, **kwargs))
        for i in range(count)
    ]
