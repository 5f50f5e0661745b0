"""The Deployment the engine runs in, asked of the API server, as the owner of what the engine keeps
for itself in its namespace.

What the engine writes there for its own use (the kinds' revisions) belongs to the install that
runs it and should go with it.  Kubernetes' way is an owner reference: the garbage collector
deletes an object once every owner it names is gone, so an object that names the engine's
Deployment goes when the Deployment does, as with ``helm uninstall``.

The Deployment is found, not guessed from a name: the pod's name and namespace come from the
downward API (``POD_NAME`` and ``POD_NAMESPACE``, which the chart sets), the pod's controller is
read from the pod (a ReplicaSet), and that ReplicaSet's controller is the Deployment, uid and all.
An engine outside a pod, in a pod no Deployment controls, or one that may not read its pod or
ReplicaSet, has no owner to name (said once): what it writes stays until it is deleted, as before.
An owner reference can only name an owner of the object's own namespace, so objects of any other
namespace get none.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Mapping
from typing import Any

from engine.core.model import errors
from engine.core.model.objects import Obj
from engine.runtime.cluster.seam import Api

log = logging.getLogger("stencil.controller")

Pod = tuple[str, str]  # namespace, name


def this_pod(environ: Mapping[str, str] | None = None) -> Pod | None:
    """The pod this process runs in, as the downward API tells it (``POD_NAMESPACE`` and
    ``POD_NAME``), or None outside one."""
    environ = os.environ if environ is None else environ
    namespace, name = environ.get("POD_NAMESPACE", ""), environ.get("POD_NAME", "")
    return (namespace, name) if namespace and name else None


def controller_of(obj: Obj) -> dict[str, Any] | None:
    """The owner reference of ``obj`` that is its controller, or None."""
    for ref in obj.get("metadata", {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return dict(ref)
    return None


class Owner:
    """The engine's Deployment as an owner reference, found on first use and then kept."""

    def __init__(self, kube: Api, pod: Pod | None) -> None:
        self._kube = kube
        self._pod = pod
        self._lock = threading.Lock()
        self._found: list[dict[str, Any]] | None = None if pod is not None else []

    def references(self, namespace: str | None) -> list[dict[str, Any]]:
        """The owner references an object of ``namespace`` names: the engine's Deployment if it is
        of that namespace, else none.  An API server that cannot be reached yet is asked again next
        time."""
        if self._pod is None or namespace != self._pod[0]:
            return []
        with self._lock:
            if self._found is None:
                try:
                    self._found = self._find(*self._pod)
                except errors.Unreachable as exc:
                    log.warning("could not read the engine's own pod, asked again later: %s", exc)
                    return []
            return list(self._found)

    def _find(self, namespace: str, name: str) -> list[dict[str, Any]]:
        """[the Deployment that controls the pod's ReplicaSet], or [] with the reason logged."""
        where = f"pod {namespace}/{name}"
        try:
            found = self._kube.get(self._kube.resource("v1", "Pod"), name, namespace)
            ref = _controller(found, "ReplicaSet")
            if ref is not None:
                where = f"ReplicaSet {namespace}/{ref['name']}"
                found = self._kube.get(self._kube.resource("apps/v1", "ReplicaSet"), ref["name"], namespace)
                ref = _controller(found, "Deployment")
        except errors.ApiError as exc:
            log.warning("%s cannot be read: %s; %s", where, exc, _NO_OWNER)
            return []
        if ref is None:  # a bare pod, another controller's, or one gone
            log.warning("no Deployment controls the %s; %s", where, _NO_OWNER)
            return []
        log.info("%s is owned by the Deployment %s/%s", _OWNED, namespace, ref["name"])
        return [{"apiVersion": "apps/v1", "kind": "Deployment", "name": ref["name"], "uid": ref["uid"]}]


_OWNED = "what the engine keeps in its namespace"
_NO_OWNER = f"{_OWNED} gets no owner"


def _controller(obj: Obj | None, kind: str) -> dict[str, Any] | None:
    """The controller reference of ``obj`` if it is an ``apps/v1`` ``kind``, else None."""
    ref = controller_of(obj) if obj is not None else None
    return ref if ref is not None and (ref.get("apiVersion"), ref.get("kind")) == ("apps/v1", kind) else None
