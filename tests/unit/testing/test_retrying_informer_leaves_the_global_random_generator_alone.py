"""An informer that keeps failing waits a jittered backoff between tries.  The jitter comes from
the engine's own generator: the process's global ``random`` belongs to whatever embeds the
engine (a test runner drawing examples, a program seeding it to replay a run), and an informer's
thread that went on drawing from it would change its sequence under that owner's feet."""

from __future__ import annotations

import random

from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.watching import Informer
from tests._deadlines import eventually
from tests.unit._throttling import throttling_server

CONFIGMAPS = Resource("", "v1", "ConfigMap", "configmaps", True)


def test_an_informer_backing_off_does_not_draw_from_the_global_generator() -> None:
    before = random.getstate()
    with throttling_server(retry_after="0") as (server, kube):
        informer = Informer(kube, CONFIGMAPS, namespace="default")
        informer.start()
        try:
            eventually(lambda: len(server.times()) >= 3, what="3 tries, with 2 waits between")
        finally:
            informer.stop()

    assert random.getstate() == before
