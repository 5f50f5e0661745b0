"""A fake at Stencil's own client seam (``engine.kube.Kube``'s verbs), in memory.

For the middle tier of tests: the controller's decisions and their order (what is
applied, when status is written, that nothing is pruned after a failed apply)
checked in milliseconds.  It proves nothing about the API server itself (server-side
apply, managed fields, garbage collection): the integration tier does that against
a real one.  Every write is recorded in ``calls``.
"""

from __future__ import annotations

import copy
import itertools
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

from engine import errors
from engine.kube import Resource

Obj = dict[str, Any]

RESOURCES = {
    ("tests.stencil.dev/v1", "Widget"): Resource("tests.stencil.dev", "v1", "Widget", "widgets", True),
    ("v1", "ConfigMap"): Resource("", "v1", "ConfigMap", "configmaps", True),
    ("v1", "Secret"): Resource("", "v1", "Secret", "secrets", True),
}


class FakeKube:
    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str, str], Obj] = {}  # apiVersion, kind, namespace, name
        self.calls: list[tuple[str, str]] = []  # (verb, "Kind namespace/name")
        self.events: list[Obj] = []
        self.fail_apply: dict[str, errors.ApiError] = {}  # child name -> error its apply raises
        self._versions = itertools.count(100)
        self._lock = threading.Lock()

    # -- helpers for tests ------------------------------------------------------

    def add(self, obj: Obj) -> Obj:
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        meta.setdefault("uid", str(uuid.uuid4()))
        meta["resourceVersion"] = str(next(self._versions))
        meta.setdefault("generation", 1)
        self.objects[self._key(obj)] = obj
        return copy.deepcopy(obj)

    def writes(self) -> list[tuple[str, str]]:
        return [call for call in self.calls if call[0] != "GET"]

    @staticmethod
    def _key(obj: Obj) -> tuple[str, str, str, str]:
        meta = obj["metadata"]
        return (obj["apiVersion"], obj["kind"], meta.get("namespace") or "", meta["name"])

    @staticmethod
    def _describe(kind: str, namespace: str | None, name: str) -> str:
        return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"

    # -- the seam -----------------------------------------------------------------

    def resource(self, api_version: str, kind: str) -> Resource:
        found = RESOURCES.get((api_version, kind))
        if found is None:
            raise errors.NotFound(404, f"no resource for {kind} in {api_version}")
        return found

    def is_namespaced(self, api_version: str, kind: str) -> bool:
        found = RESOURCES.get((api_version, kind))
        return found.namespaced if found else True

    def impersonating(self, user: str) -> FakeKube:
        return self

    def get(self, res: Resource, name: str, namespace: str | None = None) -> Obj | None:
        self.calls.append(("GET", self._describe(res.kind, namespace, name)))
        found = self.objects.get((res.api_version, res.kind, namespace or "", name))
        return copy.deepcopy(found) if found else None

    def list(
        self, res: Resource, namespace: str | None = None, label_selector: str | None = None, limit: int = 500
    ) -> tuple[list[Obj], str]:
        wanted = dict(
            part.split("=", 1) if "=" in part else (part, None)
            for part in (label_selector or "").split(",")
            if part
        )
        items = []
        for (api_version, kind, ns, _), obj in self.objects.items():
            if (api_version, kind) != (res.api_version, res.kind) or (namespace and ns != namespace):
                continue
            labels = obj["metadata"].get("labels") or {}
            if all(k in labels and (v is None or labels[k] == v) for k, v in wanted.items()):
                items.append(copy.deepcopy(obj))
        return items, str(next(self._versions))

    def watch(
        self,
        res: Resource,
        resource_version: str,
        namespace: str | None = None,
        label_selector: str | None = None,
        timeout_seconds: int = 300,
        on_open: Callable[[Callable[[], None]], None] | None = None,
    ) -> Iterator[tuple[str, Obj]]:
        closed = threading.Event()
        if on_open is not None:
            on_open(closed.set)
        closed.wait(1.0)  # a quiet server: no events, the watch ends after a while
        return iter(())

    def apply(
        self, obj: Obj, *, force: bool = True, subresource: str | None = None, dry_run: bool = False
    ) -> Obj:
        meta = obj["metadata"]
        self.calls.append(("APPLY", self._describe(obj["kind"], meta.get("namespace"), meta["name"])))
        if meta["name"] in self.fail_apply:
            raise self.fail_apply[meta["name"]]
        current = self.objects.get(self._key(obj))
        merged = {**(current or {}), **copy.deepcopy(obj)}
        merged["metadata"] = {**(current or {}).get("metadata", {}), **copy.deepcopy(meta)}
        return self.add(merged)

    def patch_status(self, res: Resource, name: str, namespace: str | None, status: Obj) -> Obj:
        self.calls.append(("STATUS", self._describe(res.kind, namespace, name)))
        current = self.objects[(res.api_version, res.kind, namespace or "", name)]
        return self.add({**current, "status": copy.deepcopy(status)})

    def patch_json(self, res: Resource, name: str, namespace: str | None, ops: list[Obj]) -> Obj:
        self.calls.append(("PATCH", self._describe(res.kind, namespace, name)))
        current = copy.deepcopy(self.objects[(res.api_version, res.kind, namespace or "", name)])
        for op in ops:
            if op["op"] == "add" and op["path"] == "/metadata/finalizers":
                current["metadata"]["finalizers"] = op["value"]
        return self.add(current)

    def delete(
        self,
        res: Resource,
        name: str,
        namespace: str | None = None,
        *,
        uid: str | None = None,
        propagation: str = "Background",
    ) -> bool:
        self.calls.append(("DELETE", self._describe(res.kind, namespace, name)))
        return self.objects.pop((res.api_version, res.kind, namespace or "", name), None) is not None

    def request(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        if method == "POST" and path.endswith("/events"):
            self.calls.append(("EVENT", f"{body['reason']}"))
            self.events.append(body)
            return body
        raise AssertionError(f"the fake does not serve {method} {path}")
