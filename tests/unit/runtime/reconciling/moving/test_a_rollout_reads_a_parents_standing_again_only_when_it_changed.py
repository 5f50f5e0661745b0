"""A rollout looks at every cached parent each second.  It reads a parent's standing from the
cache's index again only when that value changed since the last look, and still sees every
change: a parent that records its revision, one that becomes Ready, one that is deleted."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.decisions.coordination import rollout
from engine.core.model.objects import Key
from engine.runtime.cluster.informers import Across
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.watching import Informer
from engine.runtime.reconciling.moving import rollouts
from tests.unit import _rollouts as r

NETWORKS = Resource("samplecrd.k8s.io", "v1", "Network", "networks", True)


def _cached(obj: dict[str, Any], version: int) -> dict[str, Any]:
    meta = {**obj["metadata"], "resourceVersion": str(version), "uid": obj["metadata"]["name"]}
    return {**obj, "metadata": meta}


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[Key]:
    """The parents whose index value a look decoded."""
    decoded: list[Key] = []
    real = rollout.standing_of

    def counting(key: Key, value: str) -> rollout.Standing:
        decoded.append(key)
        return real(key, value)

    monkeypatch.setattr(rollout, "standing_of", counting)
    return decoded


def test_only_changed_standings_are_read_again(reads: list[str]) -> None:
    informer = Informer(None, NETWORKS)  # type: ignore[arg-type]  # fed by hand; it never lists
    cache = Across({None: informer})
    watched = rollouts.Rollout(None, "network", cache, None)  # type: ignore[arg-type]
    for i in range(3):
        informer.store.apply("ADDED", _cached(r.parent(f"p-{i}", None), 1))
    assert [s.revision for s in watched._standings()] == [None, None, None]
    assert reads == []  # none records a revision yet: nothing to decode

    informer.store.apply("MODIFIED", _cached(r.parent("p-1", 1, ready="False", reason="Waiting"), 2))
    first = {s.key: s for s in watched._standings()}
    assert (
        reads == [Key("ns", "p-1")]
        and first[Key("ns", "p-1")].revision == 1
        and not first[Key("ns", "p-1")].ready
    )

    reads.clear()
    assert watched._standings() == list(first.values())
    assert reads == []  # nothing changed: nothing read again

    informer.store.apply("MODIFIED", _cached(r.parent("p-1", 1), 3))  # now Ready
    informer.store.apply("DELETED", _cached(r.parent("p-2", None), 4))
    now = {s.key: s for s in watched._standings()}
    assert reads == [Key("ns", "p-1")] and now[Key("ns", "p-1")].ready
    assert sorted(now) == [Key("ns", "p-0"), Key("ns", "p-1")]  # the deleted parent is gone
