"""An engine holding every shipped kind writes, at rest, no claim at all: over a minute its only
Lease writes are its heartbeat's, 3 renewals a minute for a ``stencil run`` without leader
election (a 60 s Lease renewed every 20 s, its defaults), and the leader Lease's renewals when
it is leader-elected, however many kinds it holds.  The engine runs as a ServiceAccount alone in
a FlowSchema of its Lease writes, so the API server counts them apart from every other writer's
(the API server renews Leases of its own)."""

from __future__ import annotations

import contextlib
import math
import time
from pathlib import Path
from typing import Any

import pytest

from engine.core.decisions.coordination import holding
from engine.core.model import kinds
from engine.runtime.cluster.kube import Kube
from engine.testing import write_requests
from tests.integration._engine import ROOT, eventually
from tests.integration._holds import RETRY_PERIOD, engine, holds, version
from tests.integration._writers import counted_writers, writes_of

WINDOW = 60.0
HEARTBEAT_RETRY = 20.0  # stencil run's default --heartbeat-retry-period


@pytest.mark.parametrize("leader_elected", [False, True], ids=["plain", "leader-elected"])
def test_at_rest_the_only_lease_writes_are_the_heartbeats(
    kube: Kube,
    namespace: str,
    crds_installed: list[str],
    local_cluster: Any,
    tmp_path: Path,
    leader_elected: bool,
) -> None:
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    claims = sorted(holding.lease_name(k.api_version, k.kind) for k in loaded.values())
    assert len(claims) >= 5
    account = "holder"
    more = ["--leader-elect", "--leader-elect-namespace", namespace] if leader_elected else []
    # The engine's default heartbeat timings, not the helper's short ones: those are measured here.
    more += ["--heartbeat-lease-duration", "60", "--heartbeat-renew-deadline", "40"]
    more += ["--heartbeat-retry-period", str(HEARTBEAT_RETRY)]
    retry = RETRY_PERIOD if leader_elected else HEARTBEAT_RETRY
    with contextlib.ExitStack() as stack:
        configs = stack.enter_context(
            counted_writers(
                kube,
                local_cluster.kubeconfig,
                namespace,
                [account],
                [("coordination.k8s.io", "leases")],
                tmp_path,
            )
        )
        first = stack.enter_context(
            engine(configs[account], tmp_path, namespace, "engine-a", ROOT / "templates", *more)
        )
        for claim in claims:
            eventually(lambda claim=claim: holds(first, claim) == [1.0], what=f"{claim} held")
        time.sleep(1.0)  # an answer to a claim's write still in flight lands before the window

        versions = {claim: version(kube, namespace, claim) for claim in claims}
        before, leases_before = writes_of(kube, namespace, account), write_requests(kube)
        time.sleep(WINDOW)  # at rest: nothing changes in this window
        written = writes_of(kube, namespace, account) - before
        leases = write_requests(kube) - leases_before

    print(f"{len(claims)} kinds held, {'leader-elected' if leader_elected else 'plain'}: {written} Lease "
          f"writes by the engine in {WINDOW:.0f} s; every Lease writer: {dict(leases)}")  # fmt: skip
    assert {claim: version(kube, namespace, claim) for claim in claims} == versions  # no claim written
    assert 1 <= written <= math.floor(WINDOW / retry) + 1  # the heartbeat's renewals, and only they
