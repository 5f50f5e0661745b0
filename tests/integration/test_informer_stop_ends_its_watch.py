"""Stopping an informer ends its open watch at once: no thread stays blocked on a quiet
connection until the server's watch timeout."""

from __future__ import annotations

import time
from collections.abc import Callable

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


def test_ending_a_watch_that_already_ended_is_harmless(kube: Kube, namespace: str) -> None:
    configmaps = kube.resource("v1", "ConfigMap")
    _, version = kube.list(configmaps, namespace)
    closers: list[Callable[[], None]] = []

    for _event in kube.watch(configmaps, version, namespace, timeout_seconds=1, on_open=closers.append):
        pass  # nothing changes here; at most a bookmark

    closers[0]()  # the informer may call the closer of a watch that just ended; nothing to do
