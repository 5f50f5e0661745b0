"""Stopping an informer ends its open watch at once: no thread stays blocked on a quiet
connection until the server's watch timeout."""

from __future__ import annotations

import time

from engine.kube import Kube
from engine.watching import Informer
from tests.integration._engine import eventually


def test_stop_ends_the_watch_thread_promptly(kube: Kube, namespace: str) -> None:
    informer = Informer(kube, kube.resource("v1", "ConfigMap"), namespace=namespace, watch_timeout=300)
    informer.start()
    assert informer.wait_for_sync(30)
    time.sleep(0.5)  # the watch is open and idle: nothing changes in this namespace
    threads = list(informer._threads)

    informer.stop()

    eventually(lambda: not any(t.is_alive() for t in threads), timeout=5, what="the watch thread to end")
