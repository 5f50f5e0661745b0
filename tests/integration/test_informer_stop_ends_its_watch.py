"""Stopping an informer ends its open watch at once: no thread stays blocked on a quiet
connection until the server's watch timeout."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path

from engine.runtime.cluster.kube import Kube
from engine.runtime.cluster.watching import Informer
from tests.integration._engine import eventually


def waits_on_a_read(thread: threading.Thread) -> bool:
    """Whether ``thread`` is blocked reading a socket: the Python frame it is in is ssl's or socket's."""
    frame = sys._current_frames().get(thread.ident or 0)
    return frame is not None and Path(frame.f_code.co_filename).name in ("ssl.py", "socket.py")


def test_stop_ends_the_watch_thread_promptly(kube: Kube, namespace: str) -> None:
    informer = Informer(kube, kube.resource("v1", "ConfigMap"), namespace=namespace, watch_timeout=300)
    informer.start()
    assert informer.wait_for_sync(30)
    threads = list(informer._threads)
    # The watch is open (its closer is registered) and its thread waits for an event that
    # never comes: nothing changes in this namespace.
    eventually(
        lambda: informer._closer is not None and waits_on_a_read(threads[0]),
        what="the watch thread to wait on its open watch",
    )

    informer.stop()

    eventually(lambda: not any(t.is_alive() for t in threads), what="the watch thread to end")


def test_ending_a_watch_that_already_ended_is_harmless(kube: Kube, namespace: str) -> None:
    """The informer may call the closer of a watch that has just ended.  By then the watch's
    connection is back in the client's pool, and the next watch opened takes it: calling the
    old closer must do nothing, not end the watch that now reads from that connection."""
    configmaps = kube.resource("v1", "ConfigMap")
    _, version = kube.list(configmaps, namespace)
    closers: list[Callable[[], None]] = []

    for _event in kube.watch(configmaps, version, namespace, timeout_seconds=1, on_open=closers.append):
        pass  # nothing changes here; at most a bookmark

    seen: list[str] = []

    def watch_again() -> None:
        events = kube.watch(configmaps, version, namespace, timeout_seconds=20, on_open=closers.append)
        for kind, obj in events:
            if kind != "BOOKMARK":
                seen.append(obj["metadata"]["name"])
                return

    second = threading.Thread(target=watch_again, daemon=True)
    second.start()
    eventually(lambda: len(closers) == 2, what="the second watch to open")
    closers[0]()
    closers[0]()  # twice: still nothing to do

    after = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "after", "namespace": namespace}}
    kube.create(after)
    second.join(15)
    assert seen == ["after"], "the second watch ended before the ConfigMap created after the closer ran"
