"""The informer's loop re-watches from the last version seen and relists after 410 Gone; it lists
by a streamed list where the server offers one, and in pages where it does not.

Driven by a scripted server at the informer's own ``ListWatcher`` seam: each
listing and each watch (a streamed list is a watch) is played in turn, then the
last watch waits until the informer stops.  A server scripted without streams
refuses them as an API server without the ``WatchList`` feature does (422).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from engine.core.model import errors
from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.watching import INITIAL_EVENTS_END, Informer
from tests._deadlines import eventually

CONFIGMAPS = Resource("", "v1", "ConfigMap", "configmaps", True)


def cm(name: str, version: str) -> Obj:
    return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": version}}


def end_of_listing(version: str) -> tuple[str, Obj]:
    return "BOOKMARK", {"metadata": {"resourceVersion": version, "annotations": {INITIAL_EVENTS_END: "true"}}}


class ScriptedServer:
    def __init__(
        self,
        listings: list[tuple[list[Obj], str]],
        watches: list[list[tuple[str, Obj] | Exception]],
        *,
        streams: bool = False,
    ):
        self.listings = listings
        self.watches = watches
        self.streams = streams
        self.watched_from: list[str] = []  # "stream" for a streamed list
        self.refused = 0
        self.idle = threading.Event()
        self.release = threading.Event()

    def list(
        self, res: Resource, namespace: str | None = None, label_selector: str | None = None, limit: int = 500
    ) -> tuple[list[Obj], str]:
        return self.listings.pop(0)

    def pages(
        self,
        res: Resource,
        namespace: str | None = None,
        label_selector: str | None = None,
        limit: int = 500,
        *,
        metadata_only: bool = False,
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
        initial_events: bool = False,
        metadata_only: bool = False,
    ) -> Iterator[tuple[str, Obj]]:
        if initial_events and not self.streams:
            self.refused += 1
            message = "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"
            raise errors.api_error(422, {"reason": "Invalid", "message": message}, "watch")
        self.watched_from.append("stream" if initial_events else resource_version)
        script = self.watches.pop(0) if self.watches else None
        if on_open is not None and not (script and isinstance(script[0], Exception)):
            on_open(self.release.set)  # accepted: a watch whose first step is an error never was
        if script is None:
            self.idle.set()
            self.release.wait(5)
            return
        for step in script:
            if isinstance(step, Exception):
                raise step
            yield step


def run(server: ScriptedServer, synced_at: list[int] | None = None) -> list[tuple[str, str, str]]:
    """The events the informer delivers; ``synced_at`` gets how many it had delivered when it
    first said it had synced."""
    seen: list[tuple[str, str, str]] = []
    informer: Informer

    def on_event(t: str, obj: Obj, old: Obj | None) -> None:
        if synced_at is not None and not synced_at and informer.has_synced:
            synced_at.append(len(seen))
        seen.append((t, obj["metadata"]["name"], obj["metadata"]["resourceVersion"]))

    informer = Informer(server, CONFIGMAPS, on_event=on_event)
    informer.start()
    try:
        eventually(server.idle.is_set, interval=0.01, what="the script to play out")
    finally:
        informer.stop()
        server.release.set()
    if synced_at is not None and not synced_at and informer.has_synced:
        synced_at.append(len(seen))
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


def test_a_streamed_list_fills_the_cache_then_goes_on_as_the_watch() -> None:
    server = ScriptedServer(
        listings=[],
        watches=[
            [
                ("ADDED", cm("a", "1")),
                ("ADDED", cm("b", "2")),
                end_of_listing("10"),
                ("MODIFIED", cm("a", "11")),
            ]
        ],
        streams=True,
    )
    synced_at: list[int] = []

    seen = run(server, synced_at)

    assert seen == [("ADDED", "a", "1"), ("ADDED", "b", "2"), ("MODIFIED", "a", "11")]
    assert synced_at == [2]  # synced at the bookmark that ends the listing, not before
    assert server.watched_from == ["stream", "11"]  # the next watch goes on from the last version


def test_a_streamed_list_cut_before_its_end_is_streamed_again_and_reports_what_vanished() -> None:
    server = ScriptedServer(
        listings=[],
        watches=[
            [("ADDED", cm("a", "1")), ("ADDED", cm("b", "2"))],  # the connection drops
            [("ADDED", cm("a", "1")), ("ADDED", cm("c", "12")), end_of_listing("20")],
        ],
        streams=True,
    )
    synced_at: list[int] = []

    seen = run(server, synced_at)

    assert seen == [("ADDED", "a", "1"), ("ADDED", "b", "2"), ("ADDED", "c", "12"), ("DELETED", "b", "2")]
    assert synced_at == [4]
    assert server.watched_from == ["stream", "stream", "20"]


def test_gone_after_a_streamed_list_streams_again() -> None:
    server = ScriptedServer(
        listings=[],
        watches=[
            [("ADDED", cm("a", "1")), end_of_listing("10"), errors.Gone(410, "too old resource version")],
            [("ADDED", cm("a", "11")), end_of_listing("20")],
        ],
        streams=True,
    )

    seen = run(server)

    assert seen == [("ADDED", "a", "1"), ("MODIFIED", "a", "11")]
    assert server.watched_from == ["stream", "stream", "20"]


def test_a_server_that_cannot_stream_is_listed_in_pages_from_then_on() -> None:
    server = ScriptedServer(
        listings=[([cm("a", "1")], "10"), ([cm("b", "16")], "20")],
        watches=[[errors.Gone(410, "too old resource version")]],
    )

    seen = run(server)

    assert seen == [("ADDED", "a", "1"), ("ADDED", "b", "16"), ("DELETED", "a", "1")]
    assert server.refused == 1  # asked once; the relist after Gone is paged straight away
    assert server.watched_from == ["10", "20"]
