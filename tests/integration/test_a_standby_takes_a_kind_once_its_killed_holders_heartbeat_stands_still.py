"""A holder killed with SIGKILL releases nothing: its claim still names it, and the standby takes
the kind once the holder's heartbeat has stood still for the heartbeat's lease duration on the
standby's clock, and converges the parents from then on.  The heartbeat is short here (4 s, renewed
every 0.5 s) so that the test is quick; the standby reads the claims every 0.5 s."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import holding
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests.integration._engine import eventually
from tests.integration._holds import NETWORK_LEASE, RETRY_PERIOD, engine, holder, holds, kinds, reconciles
from tests.integration._shards import network, published

HEARTBEAT_DURATION = 4.0
HEARTBEAT = (
    "--heartbeat-lease-duration",
    "4",
    "--heartbeat-renew-deadline",
    "3",
    "--heartbeat-retry-period",
    "0.5",
)
# The standby sees the heartbeat stand still from its first read after the kill (up to 2.2
# retry periods late) and takes the kind at its first read after the duration; the rest is room
# for a loaded, shared machine.
MARGIN = 2 * 2.2 * RETRY_PERIOD + 4.0
PARENTS = 4


def test_a_standby_takes_a_kind_a_lease_duration_after_its_holder_is_killed(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any, tmp_path: Path
) -> None:
    templates = kinds(tmp_path / "kinds", "network")
    config = local_cluster.kubeconfig
    with engine(config, tmp_path, namespace, "engine-a", templates, *HEARTBEAT) as first:
        eventually(lambda: holds(first, NETWORK_LEASE) == [1.0], what="engine-a to hold the kind")
        with engine(config, tmp_path, namespace, "engine-b", templates, *HEARTBEAT) as second:
            eventually(lambda: holds(second, NETWORK_LEASE) == [0.0], what="engine-b to stand by")
            claim = kube.get(kube.resource("coordination.k8s.io/v1", "Lease"), NETWORK_LEASE, namespace)
            assert claim is not None
            heartbeat = f"{namespace}/{holding.heartbeat_name('engine-a')}"
            assert claim["metadata"]["annotations"][holding.HEARTBEAT_ANNOTATION] == heartbeat

            first.kill()
            killed = time.monotonic()
            assert holder(kube, namespace, NETWORK_LEASE) == "engine-a"  # nothing was released
            eventually(
                lambda: holds(second, NETWORK_LEASE) == [1.0],
                timeout=HEARTBEAT_DURATION + 60,
                what="engine-b to take the kind",
            )
            took = time.monotonic() - killed
            print(f"engine-b took the kind {took:.2f}s after engine-a was killed")
            # It waited for the heartbeat to stand still: renewed last at most a retry period before the kill.
            assert took >= HEARTBEAT_DURATION - 2 * 0.5
            assert took <= HEARTBEAT_DURATION + MARGIN
            assert holder(kube, namespace, NETWORK_LEASE) == "engine-b"

            manifests.apply_all(kube, [network(f"net-{i}") for i in range(PARENTS)], namespace)
            eventually(lambda: len(published(kube, namespace)) == PARENTS, what="every ConfigMap")
            # The count ticks as each reconcile returns, after its child is visible.
            eventually(lambda: reconciles(second, "network") >= PARENTS, what="engine-b's reconciles")
