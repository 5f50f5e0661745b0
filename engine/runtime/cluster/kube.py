"""The one door to the API server: plain JSON dicts over a kept-alive connection pool.

Only this module imports the official ``kubernetes`` client, and only for what it
does well: reading a kubeconfig (its contexts, exec plugins and token refresh).  A
process in a pod reads its service account without it (``incluster``).  Requests go
through urllib3 directly with JSON bodies, because the client's generated model
classes cost several times the CPU and memory of plain dicts (about 3x and 2-4x
here; ``bench/bench_objects.py``); what urllib3 and HTTP make of a request and its
answer is ``engine.runtime.cluster.transport``.
Resources are found by discovery (``apiVersion`` + ``kind`` -> plural and scope),
never by generated API classes.

Every write Stencil makes uses the single field manager ``FIELD_MANAGER``, set
here and nowhere else: changing it would orphan the fields owned on every object.  The one
exception is a parent's patch of an object it does not own, applied as the parent's own
manager (``engine.core.model.children.patches``), so that its fields are the parent's alone.
"""

from __future__ import annotations

import builtins
import copy
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import urllib3
import yaml

from engine.core.decisions.plans.ownership import (
    FIELD_MANAGER as FIELD_MANAGER,  # the engine's one field manager
)
from engine.core.model import apis, errors
from engine.core.model.objects import Obj
from engine.runtime.cluster import incluster, nesting, transport

# A kind the server does not serve is asked about again only after this long, so a
# reconcile of a parent that renders it costs no discovery round-trip; ``forget``
# (a CRD changed) ends the wait at once.
DISCOVERY_MISS_TTL = 5.0
# How long a request may wait for the status line of the answer.  Priority and fairness queues
# a request for at most a minute before it turns it away with 429, so a request is never given
# up while the server still holds it in a queue; a server that took the connection and
# then says nothing (restarting, wedged) costs a minute, not the length of a watch.
ANSWER_TIMEOUT = 60.0
# A resourceVersion no object can have (etcd's first revision is the cluster's own first write):
# as an apply's precondition it lets the apply create an object but never change one.
CREATE_ONLY_VERSION = "1"

Answered = Callable[[str, str, int], None]  # (host, method, status code) of one answer


@dataclass(frozen=True)
class Resource:
    """A REST resource found by discovery."""

    group: str
    version: str
    kind: str
    plural: str
    namespaced: bool
    short_names: tuple[str, ...] = field(default=(), compare=False)  # as `kubectl get` reads them

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    def path(self, namespace: str | None = None, name: str | None = None, sub: str | None = None) -> str:
        base = f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"
        if self.namespaced and namespace:
            base += f"/namespaces/{namespace}"
        base += f"/{self.plural}"
        if name:
            base += f"/{name}"
        if sub:
            base += f"/{sub}"
        return base


class Kube:
    """A thread-safe client for raw JSON requests, with discovery."""

    def __init__(
        self, configuration: Any, pool_size: int = 32, answer_timeout: float = ANSWER_TIMEOUT
    ) -> None:
        self._config = configuration
        self._token = transport.Token(configuration)
        self._answer_timeout = answer_timeout
        where = urllib.parse.urlsplit(configuration.host.rstrip("/"))
        self._server = where.netloc  # what the metrics call the server
        self._base = where.path  # a proxy's prefix before every path (Rancher's /k8s/clusters/<id>)
        self._pool = transport.pool(configuration, pool_size)
        self._resources: dict[tuple[str, str], Resource] = {}
        self._misses: dict[str, float] = {}  # api_version -> when it may be asked about again
        self._discovery_lock = threading.Lock()
        self._impersonate: str | None = None
        self._answered: Answered | None = None

    def close(self) -> None:
        """Close the pool's connections: a command done with the cluster (a request after it fails
        as ``Unreachable``)."""
        self._pool.close()

    # -- construction ---------------------------------------------------

    @classmethod
    def from_kubeconfig(cls, path: str | None = None, context: str | None = None, **kw: Any) -> Kube:
        from kubernetes import client, config  # the only place the official client is used

        configuration = client.Configuration()
        try:
            config.load_kube_config(  # type: ignore[no-untyped-call]
                config_file=path, context=context, client_configuration=configuration
            )
        except (config.ConfigException, OSError, ValueError, yaml.YAMLError) as error:
            where = path or "$KUBECONFIG or ~/.kube/config"
            problem = " ".join(str(error).split())  # one line, whatever the reader wrote
            if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
                problem = f"line {error.problem_mark.line + 1}: not YAML: {error.problem}"
            raise errors.StencilError(f"cannot use the kubeconfig ({where}): {problem}") from error
        return cls(configuration, **kw)

    @classmethod
    def in_cluster(cls, **kw: Any) -> Kube:
        """The client of a process in a pod (``incluster``), without the official client."""
        return cls(incluster.load(), **kw)

    @classmethod
    def auto(cls, kubeconfig: str | None = None, context: str | None = None, **kw: Any) -> Kube:
        """The kubeconfig if one is given or found, else the in-cluster config."""
        import os

        if kubeconfig or os.environ.get("KUBECONFIG") or os.path.exists(os.path.expanduser("~/.kube/config")):
            return cls.from_kubeconfig(kubeconfig, context, **kw)
        return cls.in_cluster(**kw)

    def impersonating(self, user: str) -> Kube:
        """This client acting as ``user`` (``Impersonate-User``), sharing connections and discovery.

        For a service account (``system:serviceaccount:<ns>:<name>``) the API server
        adds the account's groups itself, so no group is sent.
        """
        view = copy.copy(self)
        view._impersonate = user
        return view

    def observe(self, answered: Answered) -> None:
        """Tell ``answered`` the status code of every answer, watches' included: how metrics
        count throttling (429) and writes by verb, with no metrics imported here."""
        self._answered = answered

    def _answer(self, method: str, response: urllib3.BaseHTTPResponse) -> None:
        if self._answered is not None:
            self._answered(self._server, method, response.status)

    # -- transport ------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        query: Mapping[str, str] | None = None,
        content_type: str | None = None,
        timeout: float | None = 60.0,
        accept: str = transport.JSON,
    ) -> Any:
        """One request; the decoded JSON answer, or an ``ApiError``."""
        url = self._base + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else transport.encoded(body)
            content_type = content_type or "application/json"
        with transport.reaching(f"{method} {path}"):
            response = self._pool.request(
                method,
                url,
                body=data,
                headers=transport.headers(self._token, content_type, self._impersonate, accept),
                timeout=urllib3.Timeout(total=timeout, connect=10.0, read=timeout),
                retries=False,
            )
            payload = response.data
        self._answer(method, response)
        if response.status >= 400:
            raise transport.error(response, payload, f"{method} {path}")
        if not payload:
            return None
        if response.headers.get("Content-Type", "").startswith("application/json"):
            return nesting.loads(payload)
        return payload.decode()

    # -- discovery ------------------------------------------------------

    def resource(self, api_version: str, kind: str) -> Resource:
        """The REST resource serving ``kind`` in ``api_version``; rediscovers on a miss, at most
        once per ``DISCOVERY_MISS_TTL`` for a group version."""
        key = (api_version, kind)
        found = self._resources.get(key)
        if found is not None:
            return found
        with self._discovery_lock:
            found = self._resources.get(key)
            if found is None and self._misses.get(api_version, 0.0) <= time.monotonic():
                self._discover(api_version)
                found = self._resources.get(key)
                if found is None:
                    self._misses[api_version] = time.monotonic() + DISCOVERY_MISS_TTL
        if found is None:
            # Not the parent's fault, and fixed by installing a CRD: looked at again when discovery
            # may ask again, without a backoff that grows while the CRD is missing.
            message = f"the server has no resource for kind {kind} in {api_version}"
            raise errors.NotFound(404, message, retry_after=DISCOVERY_MISS_TTL)
        return found

    def is_namespaced(self, api_version: str, kind: str) -> bool:
        """Whether ``kind`` is namespaced; an unknown kind counts as namespaced, so that it
        fails later, at apply time, with the server's own message."""
        try:
            return self.resource(api_version, kind).namespaced
        except errors.NotFound:
            return True

    def forget(self, api_version: str) -> None:
        """Drop discovery for a group version, found or missed (after a CRD changed)."""
        with self._discovery_lock:
            for key in [k for k in self._resources if k[0] == api_version]:
                del self._resources[key]
            self._misses.pop(api_version, None)

    def _discover(self, api_version: str) -> None:
        group, version = apis.split_api_version(api_version)
        path = f"/apis/{group}/{version}" if group else f"/api/{version}"
        try:
            listing = self.request("GET", path)
        except errors.NotFound:
            return
        for item in listing.get("resources", []):
            if "/" in item["name"]:
                continue  # subresources
            self._resources[(api_version, item["kind"])] = Resource(
                group, version, item["kind"], item["name"], bool(item["namespaced"]),
                tuple(item.get("shortNames") or ()),
            )  # fmt: skip

    # -- verbs ------------------------------------------------------------

    def get(self, res: Resource, name: str, namespace: str | None = None) -> Obj | None:
        try:
            obj: Obj = self.request("GET", res.path(namespace, name))
        except errors.NotFound:
            return None
        return obj

    def list(
        self,
        res: Resource,
        namespace: str | None = None,
        label_selector: str | None = None,
        limit: int = 500,
    ) -> tuple[list[Obj], str]:
        """Every object, paged; and the list's resourceVersion to watch from."""
        items: list[Obj] = []
        version = ""
        for page, listed_at in self.pages(res, namespace, label_selector, limit):
            items.extend(page)
            version = listed_at
        return items, version

    def pages(
        self,
        res: Resource,
        namespace: str | None = None,
        label_selector: str | None = None,
        limit: int = 500,
        *,
        metadata_only: bool = False,
    ) -> Iterator[tuple[builtins.list[Obj], str]]:
        """A listing a page at a time, each with the list's resourceVersion (every page is of the
        same snapshot), so a caller that keeps what it needs of a page holds one page at most.
        With ``metadata_only``, each object's metadata alone (``PartialObjectMetadata``)."""
        query: dict[str, str] = {"limit": str(limit)}
        if label_selector:
            query["labelSelector"] = label_selector
        accept = transport.METADATA_LIST if metadata_only else transport.JSON
        while True:
            page = self.request("GET", res.path(namespace), query=query, accept=accept)
            items = page.get("items") or []
            for item in items:
                item.setdefault("apiVersion", res.api_version)
                item.setdefault("kind", res.kind)
            yield items, page["metadata"]["resourceVersion"]
            token = page.get("metadata", {}).get("continue")
            if not token:
                return
            query["continue"] = token

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
        """Watch events ``(type, object)`` from a resourceVersion, with bookmarks (with
        ``metadata_only``, of each object's metadata alone).

        Ends when the server closes the watch; raises ``Gone`` when the version
        is too old, so the caller relists.  Once the server has accepted the watch
        (a 2xx status), ``on_open`` receives a function that ends it from another
        thread, even while it waits for the next event.  The status must come within
        ``ANSWER_TIMEOUT`` (else ``Unreachable``); events may then be minutes apart.

        ``initial_events`` asks for the streamed list (``sendInitialEvents``, the API
        server's ``WatchList`` feature): the watch begins with every object as of
        ``resource_version`` or later (``""``: now), served from the API server's cache an
        object at a time, and a bookmark annotated ``k8s.io/initial-events-end``.
        """
        query = {
            "watch": "true",
            "resourceVersion": resource_version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(timeout_seconds),
        }
        if initial_events:
            query.update(sendInitialEvents="true", resourceVersionMatch="NotOlderThan")
            if not resource_version:
                del query["resourceVersion"]
        if label_selector:
            query["labelSelector"] = label_selector
        accept = transport.METADATA_WATCH if metadata_only else transport.JSON
        url = self._base + res.path(namespace) + "?" + urllib.parse.urlencode(query)
        with transport.reaching(f"watch {res.plural}"):
            response = self._pool.request(
                "GET",
                url,
                headers=transport.headers(self._token, None, self._impersonate, accept),
                preload_content=False,
                timeout=urllib3.Timeout(connect=10.0, read=self._answer_timeout),
                retries=False,
            )
        self._answer("GET", response)
        try:
            if response.status >= 400:
                with transport.reaching(f"watch {res.plural}"):
                    payload = response.read()
                raise transport.error(response, payload, f"watch {res.plural}")
            transport.keep_reading(response, timeout_seconds + 30)
            if on_open is not None:
                on_open(lambda: transport.shutdown(response))
            yield from transport.events(response)
        finally:
            response.release_conn()

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
        """Server-side apply ``obj`` as ``manager`` (the engine's ``FIELD_MANAGER`` unless a parent's
        patch says its own); with ``dry_run`` the server only says what the object would become.

        ``create_only`` makes the apply a claim of the name: it creates the object if there is
        none, and raises ``AlreadyExists`` if there is one, in one atomic request.  The apply
        carries a resourceVersion no existing object can have (``CREATE_ONLY_VERSION``): the
        server ignores it when the apply creates the object, and refuses the apply (409) when an
        object of that name exists.  Unlike a create (POST), the object's fields are owned by the
        manager's ``Apply`` entry from the start, so a field a later apply leaves out is removed.
        """
        res = self.resource(obj["apiVersion"], obj["kind"])
        meta = obj["metadata"]
        if create_only:
            obj = {**obj, "metadata": {**meta, "resourceVersion": CREATE_ONLY_VERSION}}
        query = {"fieldManager": manager, "force": "true" if force else "false"}
        if dry_run:
            query["dryRun"] = "All"
        try:
            result: Obj = self.request(
                "PATCH",
                res.path(meta.get("namespace"), meta["name"], subresource),
                transport.encoded(obj),
                query=query,
                content_type="application/apply-patch+yaml",
            )
        except errors.Conflict as exc:
            if not create_only:
                raise
            message = f"{obj['kind']} {meta['name']} already exists"
            raise errors.AlreadyExists(409, message, {"reason": "AlreadyExists"}) from exc
        return result

    def create(self, obj: Obj) -> Obj:
        """Create ``obj`` (POST); ``AlreadyExists`` if its name is taken."""
        res = self.resource(obj["apiVersion"], obj["kind"])
        result: Obj = self.request(
            "POST", res.path(obj["metadata"].get("namespace")), obj, query={"fieldManager": FIELD_MANAGER}
        )
        return result

    def patch_json(self, res: Resource, name: str, namespace: str | None, ops: Sequence[Obj]) -> Obj:
        """Apply a JSON patch (RFC 6902) to an object; a failed ``test`` op is a 422."""
        return self._json_patch(res.path(namespace, name), ops)

    def patch_status(self, res: Resource, name: str, namespace: str | None, ops: Sequence[Obj]) -> Obj:
        """Apply a JSON patch (RFC 6902) through the status subresource; see ``patch_json``."""
        return self._json_patch(res.path(namespace, name, "status"), ops)

    def _json_patch(self, path: str, ops: Sequence[Obj]) -> Obj:
        query, patch = {"fieldManager": FIELD_MANAGER}, "application/json-patch+json"
        result: Obj = self.request("PATCH", path, list(ops), query=query, content_type=patch)
        return result

    def delete(
        self,
        res: Resource,
        name: str,
        namespace: str | None = None,
        *,
        uid: str | None = None,
        propagation: str = "Background",
    ) -> bool:
        """Delete, only if the object still has ``uid``; False if it was already gone."""
        body: Obj = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": propagation}
        if uid:
            body["preconditions"] = {"uid": uid}
        try:
            self.request("DELETE", res.path(namespace, name), body)
        except errors.NotFound:
            return False
        return True

    def metrics(self) -> str:
        """The API server's own Prometheus metrics (needs access to ``/metrics``)."""
        text: str = self.request("GET", "/metrics")
        return text
