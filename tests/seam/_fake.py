"""A fake at Stencil's own client seam (``engine.runtime.cluster.kube.Kube``'s verbs), in memory.

For the middle tier of tests: the controller's decisions and their order (what is
applied, when status is written, that nothing is pruned after a failed apply)
checked in milliseconds.  It proves nothing about the API server itself (server-side
apply, managed fields, garbage collection): the integration tier does that against
a real one.  Every write is recorded in ``calls``.

Where the controller's correctness depends on a server behaviour, the fake has it
the way the API server does, so it cannot hide a bug: integer resourceVersions that
grow with every write; watches that replay every change after the version they
start from, in order; a create-only apply refused when the name is taken; JSON patches applied by
the RFC 6902 library the server's semantics follow, a failed ``test`` refusing the
whole patch with the server's bare 422 and a resourceVersion the patch sets taken as
a precondition (409); a status write that changes only ``.status``.  Lists and watches of
metadata alone answer whole objects, as a server that cannot serve ``PartialObjectMetadata``
answers the client's fallback; ``partial_metadata`` makes them answer as the API server does.
``before_response`` lets a test run something between a write and its answer (a
watch event arriving before the write's response).  Leases are served through ``request``
as the server serves them (a PUT must carry the current resourceVersion, else 409), and
access reviews as a server authorizing everyone (AlwaysAllow) answers them; requests for a
plural in ``unanswered`` get no answer, as from a server cut off: each
waits (through ``waiting``, which a test on a fake clock replaces) its given seconds or its
whole timeout, and raises the client's ``errors.Unreachable``.
"""

from __future__ import annotations

import builtins
import copy
import itertools
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jsonpatch

from engine.core.model import errors
from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import FIELD_MANAGER, Resource
from engine.runtime.cluster.seam import Api
from engine.runtime.cluster.watching import INITIAL_EVENTS_END

RESOURCES = {
    ("tests.stencil.dev/v1", "Widget"): Resource("tests.stencil.dev", "v1", "Widget", "widgets", True),
    # The Widget's CRD serves an older version too; the fake holds an object once per version asked.
    ("tests.stencil.dev/v1alpha1", "Widget"): Resource(
        "tests.stencil.dev", "v1alpha1", "Widget", "widgets", True
    ),
    ("tests.stencil.dev/v1", "Gadget"): Resource("tests.stencil.dev", "v1", "Gadget", "gadgets", True),
    ("v1", "ConfigMap"): Resource("", "v1", "ConfigMap", "configmaps", True),
    ("v1", "Secret"): Resource("", "v1", "Secret", "secrets", True),
    ("coordination.k8s.io/v1", "Lease"): Resource("coordination.k8s.io", "v1", "Lease", "leases", True),
}


class FakeKube:
    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str, str], Obj] = {}  # apiVersion, kind, namespace, name
        self.calls: list[tuple[str, str]] = []  # (verb, "Kind namespace/name")
        self.events: list[Obj] = []
        self.fail_apply: dict[str, errors.ApiError] = {}  # child name -> error its create or apply raises
        # Called with (verb, object written) after a write is stored and before it is answered.
        self.before_response: Callable[[str, Obj], None] | None = None
        # Lists of these resources (by plural) wait until the event is set: a server that hangs.
        self.hang_lists: dict[str, threading.Event] = {}
        # Watches deliver events only while this is set: clear it to hold them back (a slow watch).
        self.delivering = threading.Event()
        self.delivering.set()
        # Plural -> seconds a request for it (``request``) waits before it fails; None: its timeout.
        self.unanswered: dict[str, float | None] = {}
        self.waiting: Callable[[float], None] = time.sleep  # how a request's timeout passes
        # Lists and watches of metadata alone answer ``PartialObjectMetadata`` of meta.k8s.io/v1.
        self.partial_metadata = False
        self.open_watches: dict[str, int] = {}  # by plural: the watches a client holds open now
        self._versions = itertools.count(100)
        self._log: list[tuple[int, str, Obj]] = []  # (resourceVersion, event type, object)
        self._changed = threading.Condition()

    # -- helpers for tests ------------------------------------------------------

    def add(self, obj: Obj) -> Obj:
        """Store ``obj`` as created or updated now, with a new resourceVersion, and tell watchers."""
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        meta.setdefault("uid", str(uuid.uuid4()))
        meta.setdefault("generation", 1)
        with self._changed:
            existed = self._key(obj) in self.objects
            version = next(self._versions)
            meta["resourceVersion"] = str(version)
            self.objects[self._key(obj)] = obj
            self._log.append((version, "MODIFIED" if existed else "ADDED", copy.deepcopy(obj)))
            self._changed.notify_all()
        return copy.deepcopy(obj)

    def update_spec(self, api_version: str, kind: str, namespace: str, name: str, **spec: Any) -> Obj:
        """A user's edit of an object's spec: a new generation."""
        current = copy.deepcopy(self.objects[(api_version, kind, namespace, name)])
        current["spec"] = {**current.get("spec", {}), **spec}
        current["metadata"]["generation"] = current["metadata"].get("generation", 1) + 1
        return self.add(current)

    def remove(self, api_version: str, kind: str, namespace: str, name: str) -> bool:
        with self._changed:
            gone = self.objects.pop((api_version, kind, namespace, name), None)
            if gone is None:
                return False
            version = next(self._versions)
            gone["metadata"]["resourceVersion"] = str(version)
            self._log.append((version, "DELETED", gone))
            self._changed.notify_all()
        return True

    def _answer(self, verb: str, written: Obj) -> Obj:
        if self.before_response is not None:
            self.before_response(verb, copy.deepcopy(written))
        return written

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
        hang = self.hang_lists.get(res.plural)
        if hang is not None:
            hang.wait()
        with self._changed:
            items = [
                copy.deepcopy(obj)
                for obj in self.objects.values()
                if _selected(obj, res, namespace, label_selector)
            ]
            return items, str(self._log[-1][0] if self._log else 99)

    def pages(
        self,
        res: Resource,
        namespace: str | None = None,
        label_selector: str | None = None,
        limit: int = 500,
        *,
        metadata_only: bool = False,
    ) -> Iterator[tuple[builtins.list[Obj], str]]:
        """One snapshot, handed out ``limit`` items at a time, as the server pages a listing."""
        items, version = self.list(res, namespace, label_selector, limit)
        if metadata_only and self.partial_metadata:
            items = [_partial(item) for item in items]
        for start in range(0, max(len(items), 1), limit):
            yield items[start : start + limit], version

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
        """Every change after ``resource_version``, in order, until closed or ``timeout_seconds``.

        With ``initial_events``, as the server's streamed list: first every object (``ADDED``) of
        one snapshot, then the bookmark that ends them, then the changes after that snapshot.
        """
        closed = threading.Event()

        def close() -> None:
            closed.set()
            with self._changed:
                self._changed.notify_all()

        if on_open is not None:
            on_open(close)
        with self._changed:
            self.open_watches[res.plural] = self.open_watches.get(res.plural, 0) + 1
        try:
            yield from self._watched(
                res,
                resource_version,
                namespace,
                label_selector,
                timeout_seconds,
                closed,
                initial_events,
                metadata_only,
            )
        finally:
            with self._changed:
                self.open_watches[res.plural] -= 1

    def _watched(
        self,
        res: Resource,
        resource_version: str,
        namespace: str | None,
        label_selector: str | None,
        timeout_seconds: int,
        closed: threading.Event,
        initial_events: bool,
        metadata_only: bool,
    ) -> Iterator[tuple[str, Obj]]:
        since = int(resource_version) if resource_version else 0
        partial = metadata_only and self.partial_metadata
        if initial_events:
            items, listed_at = self.list(res, namespace, label_selector)
            for item in items:
                yield "ADDED", _partial(item) if partial else item
            end = {"resourceVersion": listed_at, "annotations": {INITIAL_EVENTS_END: "true"}}
            bookmark = {"apiVersion": res.api_version, "kind": res.kind, "metadata": end}
            yield "BOOKMARK", _partial(bookmark) if partial else bookmark
            since = int(listed_at)
        deadline = time.monotonic() + timeout_seconds
        while not closed.is_set() and time.monotonic() < deadline:
            with self._changed:
                pending = [(v, t, o) for v, t, o in self._log if v > since]
                if not pending:
                    self._changed.wait(min(deadline - time.monotonic(), 1.0))
                    continue
            while not self.delivering.wait(0.05):
                if closed.is_set():
                    return
            for version, type_, obj in pending:
                since = version
                if _selected(obj, res, namespace, label_selector):
                    yield type_, _partial(obj) if partial else copy.deepcopy(obj)

    def apply(
        self,
        obj: Obj,
        *,
        force: bool = True,
        subresource: str | None = None,
        dry_run: bool = False,
        create_only: bool = False,
        manager: str = FIELD_MANAGER,
    ) -> Obj:
        meta = obj["metadata"]
        self.calls.append(("APPLY", self._describe(obj["kind"], meta.get("namespace"), meta["name"])))
        if meta["name"] in self.fail_apply:
            raise self.fail_apply[meta["name"]]
        current = self.objects.get(self._key(obj))
        if create_only and current is not None:  # as the server: the impossible version fails
            body = {"reason": "AlreadyExists", "message": f"{obj['kind']} {meta['name']} already exists"}
            raise errors.api_error(409, body, "apply")
        if current is not None and meta.get("uid") not in (None, current["metadata"]["uid"]):
            message = f"Precondition failed: UID in precondition: {meta['uid']}"
            raise errors.api_error(409, {"reason": "Conflict", "message": message}, "apply")
        merged = {**(current or {}), **copy.deepcopy(obj)}
        merged["metadata"] = {**(current or {}).get("metadata", {}), **copy.deepcopy(meta)}
        return self._answer("APPLY", self.add(merged))

    def patch_status(self, res: Resource, name: str, namespace: str | None, ops: Sequence[Obj]) -> Obj:
        self.calls.append(("STATUS", self._describe(res.kind, namespace, name)))
        current = self._current(res, name, namespace)
        patched = self._patched(current, ops)
        return self._answer("STATUS", self.add({**current, "status": patched.get("status")}))

    def patch_json(self, res: Resource, name: str, namespace: str | None, ops: Sequence[Obj]) -> Obj:
        self.calls.append(("PATCH", self._describe(res.kind, namespace, name)))
        current = self._current(res, name, namespace)
        return self._answer("PATCH", self.add(self._patched(current, ops)))

    def _current(self, res: Resource, name: str, namespace: str | None) -> Obj:
        found = self.objects.get((res.api_version, res.kind, namespace or "", name))
        if found is None:
            raise errors.api_error(404, {"reason": "NotFound", "message": f"{name} not found"}, "patch")
        return copy.deepcopy(found)

    @staticmethod
    def _patched(current: Obj, ops: Sequence[Obj]) -> Obj:
        """``ops`` applied to ``current`` as the server does: a failed ``test`` refuses the whole
        patch (a bare 422), and a resourceVersion the patch sets is a precondition (409)."""
        try:
            patched: Obj = jsonpatch.apply_patch(current, ops)
        except jsonpatch.JsonPatchTestFailed as exc:
            message = "the server rejected our request due to an error in our request"
            body = {"reason": "Invalid", "message": message}
            raise errors.api_error(422, body, "patch") from exc
        if patched["metadata"].get("resourceVersion") != current["metadata"]["resourceVersion"]:
            message = "Operation cannot be fulfilled: the object has been modified"
            raise errors.api_error(409, {"reason": "Conflict", "message": message}, "patch")
        return patched

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
        return self.remove(res.api_version, res.kind, namespace or "", name)

    def request(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        res, namespace, name = _route(path)
        if res.plural in self.unanswered:
            self.calls.append(("UNANSWERED", f"{method} {self._describe(res.kind, namespace, name or '')}"))
            waits = self.unanswered[res.plural]
            self.waiting(waits if waits is not None else kw.get("timeout") or 60.0)
            raise errors.Unreachable(f"{method} {path}: the API server did not answer: timed out")
        if method == "POST" and res.plural == "selfsubjectaccessreviews":
            # As a server authorizing with AlwaysAllow (its default without RBAC) answers.
            self.calls.append(("REVIEW", body["spec"]["resourceAttributes"]["verb"]))
            return {**body, "status": {"allowed": True}}
        if method == "POST" and res.plural == "events":
            self.calls.append(("EVENT", f"{body['reason']}"))
            self.events.append(body)
            return body
        if res.plural != "leases":
            raise AssertionError(f"the fake does not serve {method} {path}")
        if method == "GET" and name:
            found = self.get(res, name, namespace)
            if found is None:
                raise errors.api_error(404, {"reason": "NotFound", "message": f"{name} not found"}, path)
            return found
        obj = copy.deepcopy(body)
        self.calls.append((method, self._describe(res.kind, namespace, obj["metadata"]["name"])))
        current = self.objects.get(self._key(obj))
        if method == "POST" and current is None:
            return self._answer(method, self.add(obj))
        if method == "POST":
            message = f"leases {obj['metadata']['name']} already exists"
            raise errors.api_error(409, {"reason": "AlreadyExists", "message": message}, path)
        if method != "PUT":
            raise AssertionError(f"the fake does not serve {method} {path}")
        if current is None:
            raise errors.api_error(404, {"reason": "NotFound", "message": f"{name} not found"}, path)
        if obj["metadata"].get("resourceVersion") != current["metadata"]["resourceVersion"]:
            message = "Operation cannot be fulfilled: the object has been modified"
            raise errors.api_error(409, {"reason": "Conflict", "message": message}, path)
        obj["metadata"] = {**current["metadata"], **obj["metadata"]}
        return self._answer(method, self.add(obj))


def _route(path: str) -> tuple[Resource, str | None, str | None]:
    """The resource, namespace and name a REST path names (``/apis/g/v/namespaces/ns/plural/name``)."""
    parts = path.split("?")[0].strip("/").split("/")
    parts = parts[2:] if parts[0] == "api" else parts[3:]
    namespace = None
    if parts[:1] == ["namespaces"] and len(parts) > 2:
        namespace, parts = parts[1], parts[2:]
    plural, name = parts[0], (parts[1] if len(parts) > 1 else None)
    found = next((res for res in RESOURCES.values() if res.plural == plural), None)
    return found or Resource("", "v1", plural, plural, True), namespace, name


def _selected(obj: Obj, res: Resource, namespace: str | None, label_selector: str | None) -> bool:
    if (obj["apiVersion"], obj["kind"]) != (res.api_version, res.kind):
        return False
    if namespace and obj["metadata"].get("namespace") != namespace:
        return False
    wanted: dict[str, str | None] = {}
    for part in (label_selector or "").split(","):
        if part:
            key, _, value = part.partition("=")
            wanted[key] = value if "=" in part else None
    labels = obj["metadata"].get("labels") or {}
    return all(k in labels and (v is None or labels[k] == v) for k, v in wanted.items())


def _conforms(fake: FakeKube) -> Api:
    """Checked by mypy: the fake offers every verb of the seam, with the real signatures."""
    return fake


def _partial(obj: Obj) -> Obj:
    """``obj`` as the API server answers a list or watch of metadata alone."""
    meta = copy.deepcopy(obj["metadata"])
    return {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta}
