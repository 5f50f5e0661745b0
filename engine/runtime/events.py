"""Kubernetes Events on parents: what Stencil did to their children, and why it failed.

Events are written through the client seam like everything else.  The recorder
drops an event identical to the last one it sent for the same object and reason,
so a failure retried with backoff does not flood the API server (client-go's
event correlator does the same, more elaborately); a steady state sends none.
"""

from __future__ import annotations

import datetime
import logging
import threading
from typing import Any, Protocol

from engine.core import errors

log = logging.getLogger("stencil.events")

NORMAL = "Normal"
WARNING = "Warning"
COMPONENT = "stencil"


class Sink(Protocol):
    def request(self, method: str, path: str, body: Any = None) -> Any: ...


class Recorder:
    def __init__(self, sink: Sink, component: str = COMPONENT) -> None:
        self._sink = sink
        self._component = component
        self._last: dict[tuple[str, str], str] = {}
        self._lock = threading.Lock()

    def emit(self, obj: dict[str, Any], type_: str, reason: str, message: str) -> None:
        meta = obj.get("metadata", {})
        uid = str(meta.get("uid", ""))
        with self._lock:
            if self._last.get((uid, reason)) == message:
                return
            self._last[(uid, reason)] = message
        namespace = meta.get("namespace") or "default"
        now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
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
            self._sink.request("POST", f"/api/v1/namespaces/{namespace}/events", event)
        except errors.ApiError as exc:  # an event is never worth failing a reconcile for
            log.warning("could not record event %s on %s: %s", reason, meta.get("name"), exc)

    def forget(self, uid: str) -> None:
        with self._lock:
            for key in [k for k in self._last if k[0] == uid]:
                del self._last[key]
