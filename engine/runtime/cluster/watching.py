"""Informers: a local, indexed copy of one kind of object, kept current by list + watch.

This is the client-go machinery every controller rebuilds (seed 002), in three
layers so that the logic worth testing needs no cluster:

- ``Store`` (``engine.runtime.cluster.store``) is pure: fed listings and watch events, it
  answers with the handler events they imply, and never goes backwards.
- ``Informer`` is the I/O shell around one store: a daemon thread lists (paged),
  then watches from the list's resourceVersion with bookmarks, re-watches from the
  last version seen when a watch ends, relists after 410 Gone, and backs off on
  other errors.  While the server does not serve it (away, restarting, or turning
  it away under priority and fairness), it says so once for each reason and once
  when a list or watch gets through again, not on every retry and not only when
  the next watch ends minutes later.  A server still filling its watch cache (a
  fresh or restarted one answers 429 or 503 "storage is (re)initializing") is waited
  for, which is no one's fault: one INFO line, and a warning only if it lasts.
  An event of an object we are writing (``writing``) waits for the write's end, so that
  the event of the write itself, overtaking its answer, does not wake the writer again
  (``engine.runtime.cluster.ownwrites``).  Handlers run on that thread, one event at a
  time and in order; a separate timer thread delivers ``SYNC`` events for every
  cached object each ``resync_period``, serialised with the others by one dispatch
  lock.
- ``InformerSet`` (``engine.runtime.cluster.informers``) shares one informer per
  (resource, namespace, label selector) between the kinds that need it.

There is no Delta FIFO between the watch and the handlers: handlers are expected to
do what the controller's do, enqueue a key and return, so the watch thread can call
them directly without falling behind.
"""

from __future__ import annotations

import builtins
import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable, Iterable, Iterator

from engine.core.model import errors
from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.ownwrites import OwnWrites
from engine.runtime.cluster.seam import ListWatcher
from engine.runtime.cluster.store import (
    ADDED,
    BOOKMARK,
    DELETED,
    MODIFIED,
    SYNC,
    Event,
    EventHandler,
    IndexFunc,
    Store,
    Transform,
    version_of,
)

log = logging.getLogger(__name__)


# Error backoff for list and watch, as client-go's reflector: from 0.8 s doubling to 30 s.
_INITIAL_BACKOFF = 0.8
_MAX_BACKOFF = 30.0
# Objects a listing page holds.  client-go asks for 500; a page of 500 Deployments decoded in Python
# is 20 MiB, which a process keeps as its high-water mark, so pages here are smaller.
PAGE = 100
# A watch that ends this quickly with no events is treated as a failure, so a server
# that closes watches at once is not hammered in a tight loop.
_SHORT_WATCH = 1.0
# The bookmark that ends a streamed list's objects, and the statuses of a server that cannot stream.
INITIAL_EVENTS_END = "k8s.io/initial-events-end"
_CANNOT_STREAM = (400, 422)
# The API server's answer while its watch cache fills (k8s.io/apiserver's cacher, as 429 or 503).
_WARMING_UP = "storage is (re)initializing"
# The jitter's own generator: the process's global one belongs to whoever embeds the engine.
_JITTER = random.Random()


class Informer:
    """One resource (optionally one namespace and label selector), cached and watched."""

    # How long a server may warm up before waiting for it is worth a warning.
    warm_up_limit = 60.0

    def __init__(
        self,
        kube: ListWatcher,
        resource: Resource,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        on_event: EventHandler | None = None,
        own_writes: bool = True,
        resync_period: float | None = None,
        watch_timeout: int = 300,
        metadata_only: bool = False,
        transform: Transform | None = None,
    ) -> None:
        self._kube = kube
        self.resource = resource
        self.namespace = namespace
        self.label_selector = label_selector
        self.resync_period = resync_period
        self.watch_timeout = watch_timeout
        self.metadata_only = metadata_only  # lists and watches ask for each object's metadata alone
        self.store = Store(resource.api_version, resource.kind, transform=transform)
        self._handlers: list[EventHandler] = [on_event] if on_event else []
        # The handlers not told of our own writes (``writing``): those that would only wake the writer.
        self._deaf_to_own: set[EventHandler] = {on_event} if on_event and not own_writes else set()
        self._own = OwnWrites()  # our writes under way, and the events that overtook their answers
        self._dispatch_lock = threading.RLock()
        self._resource_version: str | None = None
        self._streams = True  # list by a streamed list, until the server says it cannot
        self._synced = threading.Event()
        self._stopped = threading.Event()
        self._threads: list[threading.Thread] = []
        self._start_lock = threading.Lock()
        self._closer: Callable[[], None] | None = None  # ends the open watch
        self._failing_since: float | None = None  # when lists and watches stopped getting through
        self._told: set[str] = set()  # the kinds of failure already logged since then

    def __repr__(self) -> str:
        return f"Informer({self._describe()})"

    # -- lifecycle -----------------------------------------------------------------

    def start(self) -> None:
        """Start the list/watch thread (and the resync timer); a second call does nothing."""
        with self._start_lock:
            if self._threads:
                return
            self._threads.append(threading.Thread(target=self._run, name=f"informer {self._describe()}"))
            if self.resync_period:
                self._threads.append(threading.Thread(target=self._resync, name=f"resync {self._describe()}"))
            for thread in self._threads:
                thread.daemon = True
                thread.start()

    def stop(self) -> None:
        """Stop delivering events and end the open watch, so its connection is freed at once."""
        self._stopped.set()
        closer = self._closer
        if closer is not None:
            closer()

    def _opened(self, closer: Callable[[], None]) -> None:
        """The server accepted a watch: keep its closer, and say so if it had not been serving us."""
        self._closer = closer
        if self._stopped.is_set():
            closer()
        self._got_through()

    def wait_for_sync(self, timeout: float) -> bool:
        """Wait until the first listing is cached and its events delivered."""
        return self._synced.wait(timeout)

    @property
    def has_synced(self) -> bool:
        return self._synced.is_set()

    @property
    def stopped(self) -> bool:
        return self._stopped.is_set()

    @property
    def resource_version(self) -> str | None:
        """The version the next watch starts from (None: the next step is a full list)."""
        return self._resource_version

    # -- handlers and indexes ------------------------------------------------------

    def add_handler(self, handler: EventHandler, *, own_writes: bool = True) -> None:
        """Also deliver events to ``handler``, replaying the cached objects to it as ``ADDED``;
        without ``own_writes``, not the events of our own writes (``writing``)."""
        with self._dispatch_lock:
            if handler in self._handlers:
                return
            self._handlers.append(handler)
            if not own_writes:
                self._deaf_to_own.add(handler)
            for obj in self.store.each():
                self._call(handler, Event(ADDED, obj, None))

    def add_index(self, name: str, func: IndexFunc) -> None:
        self.store.add_index(name, func)

    def observe(self, obj: Obj) -> None:
        """Cache what the server answered to our own write, without delivering an event.

        The next reconcile then reads its own write instead of the version before
        it, and the watch event that later reports the same resourceVersion is
        dropped as unchanged, so a write does not wake its own parent again.
        A response older than what the watch already delivered is not cached: the
        cache never goes backwards.  ``obj`` itself is not modified.
        """
        meta = dict(obj.get("metadata", {}))  # the store cuts down its managedFields in place
        self.store.apply(MODIFIED, {**obj, "metadata": meta}, only_newer=True)

    @contextlib.contextmanager
    def writing(self, obj: Obj) -> Iterator[Callable[[Obj], None]]:
        """Our own write of ``obj`` is under way: the block sends it and gives its answer to the
        callable yielded, which caches it (``observe``).  A watch event of ``obj`` that comes
        before the write ends is cached as ever, but delivered only then, and not to the
        handlers deaf to our own writes if it is the write itself (``ownwrites``)."""
        answered = self._own.begin(obj)

        def answer(written: Obj) -> None:
            self.observe(written)
            answered(written)

        try:
            yield answer
        finally:
            for event, ours in self._own.end(obj):
                self._dispatch([event], own=ours)

    # -- reads ---------------------------------------------------------------------

    def get(self, namespace: str | None, name: str) -> Obj | None:
        return self.store.get(namespace, name)

    def list(self, namespace: str | None = None) -> list[Obj]:
        return self.store.list(namespace)

    def by_index(self, index_name: str, value: str) -> builtins.list[Obj]:
        return self.store.by_index(index_name, value)

    # -- the list/watch loop ---------------------------------------------------------

    def _run(self) -> None:
        delay = _INITIAL_BACKOFF
        while not self._stopped.is_set():
            step = "list"
            pause: float | None = None  # the server's own pace, instead of the growing backoff
            try:
                if self._resource_version is None and self._streams:
                    step = "streamed list"
                    opened = self._watch(initial_events=True)
                else:
                    if self._resource_version is None:
                        self._relist()
                    step = "watch"
                    opened = self._watch()
                if opened:
                    delay = _INITIAL_BACKOFF
                    continue
                log.debug("%s: watch ended at once without events", self._describe())
            except errors.Gone as error:
                if step != "list":
                    # The watch position was compacted away: only a full list can resume.
                    log.info(
                        "%s: watch from %s expired (%s); relisting",
                        self._describe(),
                        self._resource_version,
                        error,
                    )
                    self._resource_version = None
                    continue
                log.warning("%s: list expired while paging (%s)", self._describe(), error)
            except errors.StencilError as error:
                if self._stopped.is_set():
                    break
                if step == "streamed list" and _cannot_stream(error):
                    log.info("%s: no streamed lists (%s); listing in pages", self._describe(), error)
                    self._streams = False
                    continue
                # Down, restarting or throttled (unreachable, 5xx, 429 with Retry-After): try
                # again at that pace, not a backoff grown through the outage, so the cache is
                # back within seconds of the server, however long it was away.
                pause = error.retry_after
                self._cannot(step, error, pause)
            except Exception:
                if self._stopped.is_set():
                    break
                log.warning("%s: %s failed; retrying in %.1fs", self._describe(), step, delay, exc_info=True)
            if self._stopped.wait((pause if pause is not None else delay) * _JITTER.uniform(1.0, 1.2)):
                break
            if pause is None:
                delay = min(delay * 2, _MAX_BACKOFF)

    def _cannot(self, step: str, error: errors.StencilError, pause: float | None) -> None:
        """Log a failed list or watch once for each kind of failure while they keep failing.

        The kinds are what a reader acts on: the server away, then back but turning the
        informer away (429) or refusing it (403 while its RBAC cache fills), each said once;
        the same failure on every retry, a second apart for minutes, is not.  A server
        warming up is only waited for: said at INFO, and warned of once it outlasts
        ``warm_up_limit``.
        """
        now = time.monotonic()
        if self._failing_since is None:
            self._failing_since = now
            self._told.clear()
        level = logging.WARNING
        kind = f"{type(error).__name__} {getattr(error, 'status', '')}"
        if _warming_up(error):
            slow = now - self._failing_since >= self.warm_up_limit
            level, kind = (logging.WARNING, "still warming up") if slow else (logging.INFO, "warming up")
        if kind in self._told:
            return
        self._told.add(kind)
        retrying = f"retrying every {pause:g} s" if pause is not None else "retrying with a growing backoff"
        log.log(level, "%s: cannot %s: %s; %s", self._describe(), step, error, retrying)

    def _got_through(self) -> None:
        """A list or watch got an answer: say so once if they had been failing (a server that
        was only warming up was said once already: its end is a debug line)."""
        if self._failing_since is not None:
            took = time.monotonic() - self._failing_since
            level = logging.DEBUG if self._told <= {"warming up"} else logging.WARNING
            log.log(level, "%s: lists and watches get through again, after %.0f s", self._describe(), took)
            self._failing_since = None

    def _relist(self) -> None:
        """List everything, make the store exactly that, and deliver the differences.

        This is the loop's first step and its answer to 410 Gone when the server does not
        stream lists (see ``_watch``).
        """
        # A page at a time: a listing of thousands of objects is never held decoded at once.
        seen: set[tuple[str, str]] = set()
        version = None
        for items, listed_at in self._kube.pages(
            self.resource, self.namespace, self.label_selector, PAGE, metadata_only=self.metadata_only
        ):
            self._got_through()
            self._dispatch(self.store.refill(items, seen))
            version = listed_at
        self._dispatch(self.store.drop_unseen(seen, version))
        self._resource_version = version
        self._synced.set()

    def _watch(self, *, initial_events: bool = False) -> bool:
        """Watch until the server ends it; False if it ended at once with nothing seen.

        With ``initial_events`` the watch is the listing too, as client-go's streaming lists
        (KEP-3157): the server sends every object from its cache, one event at a time, then a
        bookmark that ends the listing, and the watch goes on from there.  The objects fill the
        store as a listing's pages do; a watch that ends before that bookmark leaves the
        listing to be done again.  Unlike a paged listing, which the server reads from etcd
        page by page, nothing is read from etcd and nothing is held a page at a time.
        """
        assert initial_events or self._resource_version is not None
        started = time.monotonic()
        seen = False
        listing: set[tuple[str, str]] | None = set() if initial_events else None  # the keys listed
        for type_, obj in self._kube.watch(
            self.resource,
            self._resource_version or "",
            self.namespace,
            self.label_selector,
            timeout_seconds=self.watch_timeout,
            on_open=self._opened,
            initial_events=initial_events,
            metadata_only=self.metadata_only,
        ):
            if self._stopped.is_set():
                return True
            seen = True
            version = version_of(obj)
            if listing is not None:
                if type_ != BOOKMARK:
                    self._dispatch(self.store.refill([obj], listing))
                elif (obj.get("metadata", {}).get("annotations") or {}).get(INITIAL_EVENTS_END) == "true":
                    self._dispatch(self.store.drop_unseen(listing, version))
                    listing = None
                    self._resource_version = version
                    self._synced.set()
                continue
            if type_ != BOOKMARK:
                event = self.store.apply(type_, obj)
                if event is not None and not self._own.hold(event):
                    self._dispatch([event])
            if version:
                self._resource_version = version
        return seen or time.monotonic() - started >= _SHORT_WATCH

    def _resync(self) -> None:
        assert self.resync_period
        while not self._stopped.wait(self.resync_period):
            if self._synced.is_set():
                self._dispatch(Event(SYNC, obj, obj) for obj in self.store.each())

    def _dispatch(self, events: Iterable[Event], *, own: bool = False) -> None:
        with self._dispatch_lock:
            for event in events:
                if self._stopped.is_set():
                    return
                for handler in self._handlers:
                    if not (own and handler in self._deaf_to_own):
                        self._call(handler, event)

    def _call(self, handler: EventHandler, event: Event) -> None:
        # A failing handler must not stop the informer nor starve the other handlers.
        try:
            handler(event.type, event.obj, event.old)
        except Exception:
            meta = event.obj.get("metadata", {})
            log.exception(
                "%s: handler failed on %s %s/%s",
                self._describe(),
                event.type,
                meta.get("namespace", ""),
                meta.get("name"),
            )

    def _describe(self) -> str:
        parts = [self.resource.plural + (f".{self.resource.group}" if self.resource.group else "")]
        if self.namespace:
            parts.append(f"in {self.namespace}")
        if self.label_selector:
            parts.append(f"with {self.label_selector}")
        return " ".join(parts)


def _cannot_stream(error: errors.StencilError) -> bool:
    return isinstance(error, errors.ApiError) and error.status in _CANNOT_STREAM


def _warming_up(error: errors.StencilError) -> bool:
    """The server's watch cache is filling; not when it says why (etcd down is a failure)."""
    return (
        isinstance(error, errors.ApiError)
        and error.status in (429, 503)
        and error.message.rstrip().endswith(_WARMING_UP)
    )


__all__ = [
    "ADDED",
    "DELETED",
    "MODIFIED",
    "SYNC",
    "Event",
    "EventHandler",
    "Informer",
    "ListWatcher",
]
