"""``stencil migrate``'s requests: a CRD's objects listed and written back, the progress kept, the trim.

``engine.core.offline.migration`` decides; this module asks.  ``crd`` finds the CRD (by name, or
by the group and kind of a kind folder's parent); ``run`` lists its objects a page at a time,
at the version the CRD stores (``migration.Target.version``), writes each object of a page back
as it was read, several at once, and records the progress in a ConfigMap (``State``) once the
page is done; ``trim`` then takes the other versions off the CRD's ``status.storedVersions``.
A killed run leaves its last page's record: the next run goes on from its continue token.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from engine.core.model import apis, errors, kinds
from engine.core.model.objects import Obj
from engine.core.offline import migration
from engine.core.offline.migration import Outcome, Progress, Target
from engine.runtime.cluster.kube import Kube, Resource

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
CONFIGMAPS = "/api/v1/namespaces/{namespace}/configmaps"
TRIM_ATTEMPTS = 5  # writes of the CRD's status refused by a conflict before giving up

Note = Callable[[str], None]
Paged = Callable[[Progress, int | None], None]  # the progress after a page, and the total


def crd(kube: Kube, named: str) -> Obj:
    """The CRD ``named`` (a CRD's name, ``networks.samplecrd.k8s.io``) or serving the parent of the
    kind folder ``named``; a ``StencilError`` saying which is missing."""
    if Path(named).is_dir():
        kind = kinds.load_kind(Path(named))
        group = apis.group_of(kind.api_version)
        items = kube.request("GET", CRDS).get("items") or []
        found = migration.find(items, group, kind.kind)
        if found is None:
            raise errors.StencilError(f"no CRD serves {kind.kind} in group {group or 'core'} (from {named})")
        return dict(found)
    if "." not in named or "/" in named:
        raise errors.StencilError(f"{named!r} is neither a kind folder nor a CRD's name (plural.group)")
    try:
        answer: Obj = kube.request("GET", f"{CRDS}/{named}")
    except errors.NotFound as exc:
        raise errors.StencilError(f"no CRD {named}") from exc
    return answer


def resource(crd: Target) -> Resource:
    return Resource(crd.group, crd.version, crd.kind, crd.plural, crd.namespaced)


class State:
    """The ConfigMap that records a migration's ``Progress``; written with the resourceVersion it
    was last read or written at, so two runs of one CRD at once do not both go on."""

    def __init__(self, kube: Kube, namespace: str, crd_name: str) -> None:
        self.kube, self.namespace, self.name = kube, namespace, migration.state_name(crd_name)
        self._version: str | None = None
        self.unreadable = False  # there, but recording no progress whole

    @property
    def where(self) -> str:
        return f"ConfigMap {self.namespace}/{self.name}"

    def _path(self, name: str | None = None) -> str:
        base = CONFIGMAPS.format(namespace=self.namespace)
        return f"{base}/{name}" if name else base

    def read(self) -> Progress | None:
        try:
            found = self.kube.request("GET", self._path(self.name))
        except errors.NotFound:
            return None
        self._version = found["metadata"]["resourceVersion"]
        progress = migration.from_data(found.get("data") or {})
        self.unreadable = progress is None
        return progress

    def write(self, progress: Progress) -> None:
        body: Obj = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": self.name, "namespace": self.namespace},
            "data": migration.as_data(progress),
        }
        try:
            if self._version is None:
                written = self.kube.request("POST", self._path(), body)
            else:
                body["metadata"]["resourceVersion"] = self._version
                written = self.kube.request("PUT", self._path(self.name), body)
        except errors.Conflict as exc:
            raise errors.StencilError(
                f"{self.where} was written by someone else meanwhile: is another `stencil migrate` "
                "of this CRD running?"
            ) from exc
        self._version = written["metadata"]["resourceVersion"]

    def delete(self) -> None:
        if self._version is not None:
            with contextlib.suppress(errors.NotFound):
                self.kube.request("DELETE", self._path(self.name))
            self._version = None


@dataclass(frozen=True)
class Report:
    progress: Progress
    handled: int  # objects written back by this run


def run(
    kube: Kube, crd: Target, state: State, begun: Progress, workers: int, note: Note, paged: Paged
) -> Report:
    """List and write back every object from where ``begun`` is, recording each page in ``state``."""
    res, progress, handled, restarted = resource(crd), begun, 0, 0
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="migrate") as pool:
        while not progress.listed:
            query = {"limit": str(migration.PAGE)}
            if progress.token:
                query["continue"] = progress.token
            try:
                page = kube.request("GET", res.path(), query=query)
            except errors.ApiError as exc:
                if not progress.token or not migration.expired(exc.status, exc.message):
                    raise
                progress = migration.over_again(progress, restarted)
                restarted += 1
                note(
                    f"the continue token has expired ({exc.status}: the server no longer holds "
                    "that listing): listing again from the first object; those already rewritten "
                    "are written as they are stored, a no-op"
                )
                continue
            items = page.get("items") or []
            outcomes = list(pool.map(lambda item: rewrite(kube, res, item), items))
            metadata = page.get("metadata") or {}
            progress = migration.after_page(progress, outcomes, metadata.get("continue") or "")
            handled += len(items)
            state.write(progress)
            paged(progress, migration.total(progress, metadata.get("remainingItemCount")))
    return Report(progress, handled)


def rewrite(kube: Kube, res: Resource, item: Obj) -> Outcome:
    """Write ``item`` back as it was listed; its outcome, or a ``StencilError`` naming it."""
    meta = item["metadata"]
    item.setdefault("apiVersion", res.api_version)
    item.setdefault("kind", res.kind)
    path = res.path(meta.get("namespace"), meta["name"])
    sent, attempt = str(meta.get("resourceVersion", "")), 1
    while True:
        failure: errors.StencilError | None = None
        try:
            answer = kube.request("PUT", path, item)
            outcome = migration.judge(200, sent, str(answer["metadata"].get("resourceVersion", "")))
        except errors.ApiError as exc:
            failure, outcome = exc, migration.judge(exc.status, attempt=attempt)
        except errors.Unreachable as exc:
            failure, outcome = exc, migration.judge(0, attempt=attempt)
        if outcome is Outcome.RETRY:
            wait = getattr(failure, "retry_after", None)
            time.sleep(1.0 if wait is None else wait)
            attempt += 1
            continue
        if outcome is Outcome.FAILED:
            name = f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]
            raise errors.StencilError(
                f"{res.kind} {name}: {failure}: stopped; the next run goes on from the last page recorded"
            ) from failure
        return outcome


def trim(kube: Kube, crd: Target) -> tuple[str, ...]:
    """Take every version but the storage version off the CRD's ``status.storedVersions``, through
    its status, read again after a conflict; the versions taken off."""
    for _ in range(TRIM_ATTEMPTS):
        found = kube.request("GET", f"{CRDS}/{crd.name}")
        body, removed = migration.trimmed(found, crd)
        if body is None:
            return ()
        try:
            kube.request("PUT", f"{CRDS}/{crd.name}/status", body)
        except errors.Conflict:
            continue
        return removed
    raise errors.StencilError(f"CRD {crd.name}: its status changed under each of {TRIM_ATTEMPTS} trims")


def remaining(kube: Kube, crd: Target, begun: Progress) -> tuple[int | None, bool]:
    """How many objects a run from ``begun`` would write back (None: the server does not say),
    asked with a listing of one; and whether its continue token has expired, so that the run
    would list from the first object."""
    if begun.listed:
        return 0, False
    query = {"limit": "1", **({"continue": begun.token} if begun.token else {})}
    try:
        page = kube.request("GET", resource(crd).path(), query=query)
    except errors.ApiError as exc:
        if not begun.token or not migration.expired(exc.status, exc.message):
            raise
        return remaining(kube, crd, migration.over_again(begun))[0], True
    metadata, items = page.get("metadata") or {}, len(page.get("items") or [])
    left = metadata.get("remainingItemCount")
    if left is not None:
        return items + left, False
    return (None if metadata.get("continue") else items), False
