"""Replicas join, stop and crash while every Network's spec keeps changing: the changes keep
converging, and no Network's child is written by a second replica unless the first one let
go of the Network in between.

From the replicas' own logs, for each Network in time order: a write by a replica after a
write by another must follow an assignment to it, made after that other replica's last write
and after it released the Network, or, when the sharder took the Network from a replica
whose Lease ended (``owner-gone``), after that replica was stopped or killed.  A replica logs a
move once its write has returned, so the replica the move was for may have acted on it first: an
order between replicas is read from when each move was sent (its line's ``sent``), which precedes
every effect it has.
"""

from __future__ import annotations

import datetime
from collections import defaultdict
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests.integration._engine import eventually
from tests.integration._process import EngineProcess
from tests.integration._shards import log_lines, network, published, replicas, wait_for_members, writes

PARENTS = 90


def now() -> str:
    moment = datetime.datetime.now(datetime.UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def epoch(moment: str) -> float:
    """A log line's time in seconds since the epoch, as its ``sent`` field says a write's."""
    return datetime.datetime.strptime(moment, "%Y-%m-%dT%H:%M:%S.%f%z").timestamp()


def test_churn_converges_and_each_change_of_writer_follows_a_hand_over(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any, tmp_path: Path
) -> None:
    ended: dict[str, str] = {}  # replica -> when it was stopped or killed

    def live() -> list[EngineProcess]:
        return [e for name, e in engines.items() if name not in ended]

    def change(round_: int) -> str:
        cidr = f"10.{round_}.0.0/16"
        manifests.apply_all(kube, [network(f"net-{i}", cidr) for i in range(PARENTS)], namespace)
        return cidr

    with replicas(local_cluster.kubeconfig, tmp_path, namespace) as engines:
        start = engines.start
        for name in ("shard-a", "shard-b", "shard-c"):
            start(name)
        wait_for_members(live(), 3)
        cidr = change(0)
        eventually(lambda: set(published(kube, namespace).values()) == {cidr}, timeout=120, what="round 0")

        # Each step changes every spec, then the membership, without waiting for convergence.
        change(1)
        start("shard-d")
        wait_for_members(live(), 4)
        change(2)
        ended["shard-b"] = now()
        engines["shard-b"].stop()
        wait_for_members(live(), 3)
        change(3)
        ended["shard-c"] = now()
        engines["shard-c"].kill()
        wait_for_members(live(), 2)
        change(4)
        start("shard-e")
        wait_for_members(live(), 3)
        cidr = change(5)
        eventually(
            lambda: published(kube, namespace) == {f"net-{i}": cidr for i in range(PARENTS)},
            timeout=120,
            what="the last change everywhere",
        )

        events: dict[str, list[tuple[str, str, str, dict[str, Any]]]] = defaultdict(list)
        for name, engine in engines.items():
            for moment, parent in writes(engine):
                events[parent].append((moment, "write", name, {}))
            for line in log_lines(engine):
                parent = str(line.get("key", "")).partition("/")[2]
                if line.get("message") == "released parent":
                    events[parent].append((line["time"], "release", name, line))
                elif line.get("message") == "assigned parent":
                    events[parent].append((line["time"], "assign", str(line["to"]), line))
        changes_of_writer = 0
        for parent, happened in events.items():
            happened.sort(key=lambda e: e[0])
            writer: str | None = None
            since = ""  # the time of the writer's last write
            for moment, what, who, _details in happened:
                if what != "write":
                    continue
                if writer is not None and who != writer:
                    changes_of_writer += 1
                    # Each replica logs a move once its write returned, and may log it after
                    # the replica it moved to acted on it; the time it was sent precedes both.
                    handed = [
                        (t, details)
                        for t, w, to, details in happened
                        if w == "assign" and to == who and since <= t and details["sent"] <= epoch(moment)
                    ]
                    assert handed, (
                        f"{parent}: {who} wrote at {moment} with no assignment since {writer}'s write"
                    )
                    assigned_at, details = handed[-1]
                    if details["reason"] == "owner-gone":
                        assert writer in ended and ended[writer] <= assigned_at, (parent, writer, details)
                    else:
                        assert any(
                            w == "release" and by == writer and since <= t and f["sent"] <= details["sent"]
                            for t, w, by, f in happened
                        ), f"{parent}: {writer} never released it before {who} was assigned it"
                writer, since = who, moment
        assert changes_of_writer > 0, "the churn moved no Network between writers"
