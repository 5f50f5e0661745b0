"""The API-server seam: the verbs the runtime uses, as a Protocol.

The engine, its controllers and caches are written against ``Api``, not against
``engine.runtime.cluster.kube.Kube``: the real client satisfies it, and so must the
in-memory fake of the seam tests (``tests/seam/_fake.py``), which mypy checks
against this Protocol, so a fake cannot drift from the real thing.  ``ListWatcher``
is the part of it an informer needs.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Protocol

from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import FIELD_MANAGER, Resource


class ListWatcher(Protocol):
    """The verbs an informer needs (a listing, whole or a page at a time, and a watch);
    ``engine.runtime.cluster.kube.Kube`` provides them.

    A watch with ``initial_events`` from version ``""`` is a listing too (the API server's
    streamed list): an ``ADDED`` event for every object, then a ``BOOKMARK`` annotated
    ``k8s.io/initial-events-end``, then the changes since; a server that cannot stream
    refuses it (422 or 400).  ``on_open`` is called once the server has accepted a watch
    (informers take it as the sign that the server serves them again).

    A seam so the loop's reactions (re-watch, relist after Gone) can be driven by
    a scripted server in tests without touching HTTP.
    """

    def list(
        self, res: Resource, namespace: str | None = None, label_selector: str | None = None, limit: int = 500
    ) -> tuple[list[Obj], str]: ...

    def pages(
        self,
        res: Resource,
        namespace: str | None = None,
        label_selector: str | None = None,
        limit: int = 500,
        *,
        metadata_only: bool = False,
    ) -> Iterator[tuple[builtins.list[Obj], str]]: ...

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
    ) -> Iterator[tuple[str, Obj]]: ...


class Api(ListWatcher, Protocol):
    """What the runtime asks of an API server (see ``engine.runtime.cluster.kube.Kube`` for each verb)."""

    def resource(self, api_version: str, kind: str) -> Resource: ...

    def is_namespaced(self, api_version: str, kind: str) -> bool: ...

    def impersonating(self, user: str) -> Api: ...

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        query: Any = None,
        content_type: str | None = None,
        timeout: float | None = 60.0,
    ) -> Any: ...

    def get(self, res: Resource, name: str, namespace: str | None = None) -> Obj | None: ...

    def apply(
        self,
        obj: Obj,
        *,
        force: bool = True,
        subresource: str | None = None,
        dry_run: bool = False,
        create_only: bool = False,
        manager: str = FIELD_MANAGER,
    ) -> Obj: ...

    def patch_json(self, res: Resource, name: str, namespace: str | None, ops: Sequence[Obj]) -> Obj: ...

    def patch_status(self, res: Resource, name: str, namespace: str | None, ops: Sequence[Obj]) -> Obj: ...

    def delete(
        self,
        res: Resource,
        name: str,
        namespace: str | None = None,
        *,
        uid: str | None = None,
        propagation: str = "Background",
    ) -> bool: ...
