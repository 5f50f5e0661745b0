"""The informer's loop re-watches from the last version seen and relists after 410 Gone.

Driven by a scripted server at the informer's own ``ListWatcher`` seam: each
listing and each watch is played in turn, then the last watch waits until the
informer stops.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

from engine.core import errors
from engine.runtime.kube import Resource
from engine.runtime.watching import Informer
from engine.testing import wait_until

CONFIGMAPS = Resource("", "v1", "ConfigMap", "configmaps", True)
Obj = dict[str, Any]


def cm(name: str, version: str) -> Obj:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": version}}


class ScriptedServer:
    def __init__(
        self, listings: list[tuple[list[Obj], str]], watches: list[list[tuple[str, Obj] | Exception]]
    ):
        self.listings = listings
        self.watches = watches
        self.watched_from: list[str] = []
        self.idle = threading.Event()
        self.release = threading.Event()

    def list(
        self, res: Resource, namespace: str | None = None, label_selector: str | None = None, limit: int = 500
    ) -> tuple[list[Obj], str]:
        return self.listings.pop(0)

    def pages(
        self, res: Resource, namespace: str | None = None, label_selector: str | None = None, limit: int = 500
    ) -> Iterator[tuple[list[Obj], str]]:
        yield self.list(res, namespace, label_selector, limit)

    def watch(
        self,
        res: Resource,
        resource_version: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        timeout_seconds: int = 300,
        on_open: Callable[[Callable[[], None]], None] | None = None,
    ) -> Iterator[tuple[str, Obj]]:
        self.watched_from.append(resource_version)
        if not self.watches:
            self.idle.set()
            self.release.wait(5)
            return
        for step in self.watches.pop(0):
            if isinstance(step, Exception):
                raise step
            yield step


def run(server: ScriptedServer) -> list[tuple[str, str, str]]:
    seen: list[tuple[str, str, str]] = []
    informer = Informer(
        server,
        CONFIGMAPS,
        on_event=lambda t, obj, old: seen.append(
            (t, obj["metadata"]["name"], obj["metadata"]["resourceVersion"])
        ),
    )
    informer.start()
    try:
        wait_until(server.idle.is_set, timeout=5, interval=0.01, what="the script to play out")
    finally:
        informer.stop()
        server.release.set()
    return seen


def test_gone_during_a_watch_relists_and_reports_what_vanished() -> None:
    server = ScriptedServer(
        listings=[([cm("a", "1"), cm("b", "2")], "10"), ([cm("a", "11"), cm("c", "16")], "20")],
        watches=[[("MODIFIED", cm("a", "11")), errors.Gone(410, "too old resource version")]],
    )

    seen = run(server)

    assert seen[:3] == [("ADDED", "a", "1"), ("ADDED", "b", "2"), ("MODIFIED", "a", "11")]
    assert sorted(seen[3:]) == [("ADDED", "c", "16"), ("DELETED", "b", "2")]
    assert server.watched_from == ["10", "20"]


def test_an_ended_watch_resumes_from_the_last_version_including_bookmarks() -> None:
    server = ScriptedServer(
        listings=[([cm("a", "1")], "10")],
        watches=[
            [("MODIFIED", cm("a", "11"))],
            [("BOOKMARK", {"metadata": {"resourceVersion": "15"}})],
        ],
    )

    seen = run(server)

    assert seen == [("ADDED", "a", "1"), ("MODIFIED", "a", "11")]
    assert server.watched_from == ["10", "11", "15"]
    assert server.listings == []
