"""An informer turned away with 429 and ``Retry-After`` tries again after that many seconds
(and up to a fifth more, its jitter), each time: the server's pace, not a backoff that grows
through a busy spell (0.8 s, 1.6 s, 3.2 s ...)."""

from __future__ import annotations

import itertools

from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.watching import Informer
from tests._deadlines import eventually
from tests.unit._throttling import throttling_server

RETRY_AFTER = 2  # seconds; neither the 1 s a 429 without the header means nor a step of the backoff
JITTER = 1.2  # the informer waits up to a fifth longer, so that its replicas do not come back at once
SLACK = 0.5  # seconds, for a loaded machine
CONFIGMAPS = Resource("", "v1", "ConfigMap", "configmaps", True)


def test_informer_waits_out_retry_after_without_growing_its_backoff() -> None:
    with throttling_server(retry_after=str(RETRY_AFTER)) as (server, kube):
        informer = Informer(kube, CONFIGMAPS, namespace="default")
        informer.start()
        try:
            eventually(lambda: len(server.times()) >= 3, timeout=3 * RETRY_AFTER * JITTER + 5, what="3 tries")
        finally:
            informer.stop()
        times = server.times()[:3]

    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert all(RETRY_AFTER <= gap <= RETRY_AFTER * JITTER + SLACK for gap in gaps), gaps
    assert not informer.has_synced
