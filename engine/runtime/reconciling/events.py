"""Kubernetes Events on parents: what Stencil did to their children, and why it failed.

Events are written through the client seam like everything else, by a thread of the
recorder's own, as client-go's broadcaster does: a reconcile hands an event over and
goes on, so a worker never waits on an event's round trip.  The hand-over is bounded
(``CAPACITY``): when the API server cannot keep up, newer events are dropped and
counted (``dropped``), never the reconcile slowed.  The recorder also drops an event
identical to the last one it sent for the same object and reason, so a failure retried
with backoff does not flood the API server (client-go's event correlator does the
same, more elaborately); a steady state sends none.

``Normal`` events (what was created, updated, deleted) are paced by a token bucket,
``NORMAL_BURST`` at once and ``NORMAL_PER_SECOND`` after that: one parent created
gets its event, and a thousand created at once do not add a thousand writes to an
API server that is busy creating their children.  Those over the pace are dropped
and counted; the children themselves show what was done (``kubectl get`` by owner).
``Warning`` events, which say what went wrong, are never paced.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from engine.core.decisions import conditions
from engine.core.model import errors
from engine.runtime.reconciling.options import SYSTEM_CLOCK, Clock

log = logging.getLogger("stencil.events")

NORMAL = "Normal"
WARNING = "Warning"
COMPONENT = "stencil"
CAPACITY = 1000  # events waiting to be sent; client-go's broadcaster queues as many
NORMAL_BURST = 50
NORMAL_PER_SECOND = 5.0
PACED, BACKLOG = "paced", "backlog"  # why an event was dropped


class Sink(Protocol):
    def request(self, method: str, path: str, body: Any = None) -> Any: ...


class Bucket:
    """A token bucket: ``burst`` takes at once, then ``per_second``."""

    def __init__(self, burst: int, per_second: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._burst, self._rate, self._clock = float(burst), per_second, clock
        self._tokens, self._at = float(burst), clock()

    def take(self) -> bool:
        now = self._clock()
        self._tokens = min(self._burst, self._tokens + (now - self._at) * self._rate)
        self._at = now
        if self._tokens < 1.0:
            return False
        self._tokens -= 1.0
        return True


class Recorder:
    def __init__(
        self,
        sink: Sink,
        component: str = COMPONENT,
        capacity: int = CAPACITY,
        *,
        normal: Bucket | None = None,
        on_drop: Callable[[str], None] | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self._sink = sink
        self._component = component
        self._last: dict[str, dict[str, str]] = {}  # uid -> reason -> the message last sent
        self._lock = threading.Lock()
        self._pending: queue.Queue[dict[str, Any] | None] = queue.Queue(capacity)
        self._normal = normal or Bucket(NORMAL_BURST, NORMAL_PER_SECOND, clock.monotonic)
        self._clock = clock
        self._on_drop = on_drop
        self.dropped = 0
        self._sender = threading.Thread(target=self._send_all, name="stencil-events", daemon=True)
        self._sender.start()

    def emit(self, obj: dict[str, Any], type_: str, reason: str, message: str) -> None:
        meta = obj.get("metadata", {})
        uid = str(meta.get("uid", ""))
        with self._lock:
            sent = self._last.get(uid)
            if sent is not None and sent.get(reason) == message:
                return
            if type_ == NORMAL and not self._normal.take():
                self._drop(PACED)
                return
            self._last.setdefault(uid, {})[reason] = message
        namespace = meta.get("namespace") or "default"
        now = conditions.timestamp(self._clock.wall())
        event = {
            "apiVersion": "v1",
            "kind": "Event",
            "metadata": {"generateName": f"{meta.get('name', 'object')}.", "namespace": namespace},
            "involvedObject": {
                "apiVersion": obj.get("apiVersion"),
                "kind": obj.get("kind"),
                "name": meta.get("name"),
                "namespace": meta.get("namespace"),
                "uid": uid,
                "resourceVersion": meta.get("resourceVersion"),
            },
            "type": type_,
            "reason": reason,
            "message": message[:1024],
            "source": {"component": self._component},
            "reportingComponent": self._component,
            "reportingInstance": self._component,
            "firstTimestamp": now,
            "lastTimestamp": now,
            "count": 1,
        }
        try:
            self._pending.put_nowait(event)
        except queue.Full:
            with self._lock:
                self._drop(BACKLOG)
            log.warning("too many events waiting to be sent; dropped %s on %s", reason, meta.get("name"))

    def _drop(self, cause: str) -> None:
        """Count an event not sent; under the lock."""
        self.dropped += 1
        if self._on_drop is not None:
            self._on_drop(cause)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every event handed over so far was sent (or failed); False on timeout."""
        deadline = time.monotonic() + timeout
        while self._pending.unfinished_tasks:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.001)
        return True

    def close(self, timeout: float = 5.0) -> None:
        """Send what is waiting (for at most ``timeout``), then stop the sender."""
        self.flush(timeout)
        try:
            self._pending.put_nowait(None)
        except queue.Full:
            return  # the sender is a daemon thread: it goes with the process
        self._sender.join(timeout)

    def _send_all(self) -> None:
        while (event := self._pending.get()) is not None:
            try:
                namespace = event["metadata"]["namespace"]
                self._sink.request("POST", f"/api/v1/namespaces/{namespace}/events", event)
            except errors.ApiError as exc:  # an event is never worth failing anything for
                involved = event["involvedObject"]
                log.warning("could not record event %s on %s: %s", event["reason"], involved["name"], exc)
            except Exception:  # the sender must outlive any surprise
                log.exception("could not record event %s", event.get("reason"))
            finally:
                self._pending.task_done()
        self._pending.task_done()

    def forget(self, uid: str) -> None:
        with self._lock:
            self._last.pop(uid, None)
