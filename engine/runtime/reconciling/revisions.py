"""A kind's revisions and its rollout's state, kept in the cluster, not on the engine's disk.

Each version of a kind folder the engine has served is a revision: an ``apps/v1``
``ControllerRevision`` (the object StatefulSets and DaemonSets keep theirs in) named
``<kind>-<hash>``, labelled with the kind, holding the folder's files and a sequence
``revision`` number.  The same files make the same revision, so an engine that restarts,
or a second replica, finds the numbers it gave before.

Each kind has a ``KindRollout`` (``stencil.dev/v1alpha1``, cluster-scoped, named after the
kind): its spec is the operator's hand on the rollout (``paused``, and ``revision`` to go
back to), its status what the engine says of it (the current and update revisions, how many
parents moved, the parent that stopped it, conditions).  ``stencil rollout`` reads and
writes it; so can kubectl.

The revisions name the engine's own Deployment as their owner (``engine.runtime.cluster.workload``),
so that Kubernetes' garbage collector deletes them with it (``helm uninstall``); one read without
that owner (written by an engine that had none, or by another install in the same namespace) is
given it as well, so it goes only once every install that uses it is gone.

Without a namespace to keep revisions in, or without the KindRollout CRD installed, the
revisions live in the engine's memory only: rollouts still go in waves, but an engine that
restarts knows only the folder it reads.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import rollout
from engine.core.model import errors, kinds
from engine.core.model.objects import Obj
from engine.runtime.cluster import transport
from engine.runtime.cluster.kube import FIELD_MANAGER, Resource
from engine.runtime.cluster.seam import Api

log = logging.getLogger("stencil.controller")

GROUP_VERSION = "stencil.dev/v1alpha1"
ROLLOUT_KIND = "KindRollout"
KIND_LABEL = "stencil.dev/kind"  # on a ControllerRevision: the kind it is a revision of
RESUMED_ANNOTATION = "stencil.dev/resumed-at"  # on a KindRollout: when it was last resumed


def files_of(directory: Path) -> dict[str, str]:
    """The files a revision holds: the folder's own files (kind.yaml and its templates), not its
    examples or tests, which change nothing a parent gets."""
    return {p.name: p.read_text() for p in sorted(directory.iterdir()) if p.is_file()}


def hash_of(files: Mapping[str, str]) -> str:
    """Ten hex digits naming the content of ``files``: equal files, equal hash."""
    hashed = hashlib.sha256()
    for name in sorted(files):
        hashed.update(name.encode() + b"\0" + files[name].encode() + b"\0")
    return hashed.hexdigest()[:10]


@dataclass
class Lineage:
    """A kind's revisions by number, the newest, and what its KindRollout says."""

    kinds: dict[int, kinds.Kind]
    latest: int
    spec: dict[str, Any] = field(default_factory=dict)  # paused, revision
    status: dict[str, Any] = field(default_factory=dict)  # currentRevision, …
    resumed: str = ""  # when the rollout was last resumed (RFC 3339)
    superseded_pin: bool = False  # the newest revision is new: a pinned revision no longer holds


class Revisions:
    """Reads and writes revisions and KindRollouts; keeps them in memory when the cluster cannot."""

    def __init__(
        self,
        kube: Api,
        namespace: str | None,
        bound: Callable[[kinds.Kind], kinds.Kind],
        owners: Callable[[str | None], list[dict[str, Any]]] = lambda namespace: [],
    ) -> None:
        self.kube = kube
        self.namespace = namespace
        self._owners = owners  # the owner references an object of a namespace names (``workload.Owner``)
        self._bound = bound  # the engine's off-limits namespaces put on every revision it loads
        self._memory: dict[str, dict[int, dict[str, str]]] = {}  # kind -> number -> files
        self._dir = Path(tempfile.mkdtemp(prefix="stencil-revisions-"))
        self._loaded: dict[tuple[str, int], kinds.Kind] = {}
        self.rollouts: Resource | None = None
        self._controller_revisions: Resource | None = None
        self._resolved = namespace is None  # in memory: nothing to look up

    def _resolve(self) -> None:
        """Find the two resources, once the API server answers (not at construction: an engine
        starts before the server is reachable)."""
        if self._resolved:
            return
        try:
            self.rollouts = self.kube.resource(GROUP_VERSION, ROLLOUT_KIND)
            self._controller_revisions = self.kube.resource("apps/v1", "ControllerRevision")
        except errors.NotFound:
            log.warning("the KindRollout CRD is not installed: kind revisions are kept in memory only")
        self._resolved = True

    @property
    def persistent(self) -> bool:
        return self._controller_revisions is not None

    def settle(self, kind: kinds.Kind) -> Lineage:
        """The kind's lineage with the folder just loaded as a revision (a new one if its files are new)."""
        self._resolve()
        files = files_of(kind.directory)
        known = self._read(kind.name)
        digest = hash_of(files)
        number = next((n for n, f in known.items() if hash_of(f) == digest), None)
        new = number is None
        if number is None:
            number = max(known, default=0) + 1
            known[number] = files
            self._write(kind.name, number, digest, files)
        revisions = {n: kind if n == number else self._kind(kind.name, n, f) for n, f in known.items()}
        lineage = Lineage({n: k for n, k in revisions.items() if k is not None}, number)
        lineage.superseded_pin = new and bool(known.keys() - {number})
        return lineage

    def _read(self, name: str) -> dict[int, dict[str, str]]:
        if self._controller_revisions is None:
            return dict(self._memory.get(name, {}))
        found: dict[int, dict[str, str]] = {}
        items, _ = self.kube.list(self._controller_revisions, self.namespace, f"{KIND_LABEL}={name}")
        owners = self._owners(self.namespace)
        for item in items:
            data = item.get("data") or {}
            if isinstance(item.get("revision"), int) and isinstance(data.get("files"), dict):
                found[item["revision"]] = {str(k): str(v) for k, v in data["files"].items()}
            self._adopt(item, owners)
        self._memory[name] = dict(found)
        return found

    def _write(self, name: str, number: int, digest: str, files: dict[str, str]) -> None:
        self._memory.setdefault(name, {})[number] = files
        if self._controller_revisions is None:
            return
        self.kube.apply(
            {
                "apiVersion": "apps/v1",
                "kind": "ControllerRevision",
                "metadata": {
                    "name": f"{name}-{digest}",
                    "namespace": self.namespace,
                    "labels": {KIND_LABEL: name},
                    **({"ownerReferences": owners} if (owners := self._owners(self.namespace)) else {}),
                },
                "revision": number,
                "data": {"files": files},
            }
        )
        log.info("kind %s: revision %d (%s) recorded", name, number, digest, extra={"kind": name})

    def _adopt(self, item: Obj, owners: list[dict[str, Any]]) -> None:
        """Add the owners ``item`` does not name yet to its owner references, keeping the others (a
        strategic merge, by uid: the revision may be another install's too)."""
        named = {ref.get("uid") for ref in item["metadata"].get("ownerReferences") or []}
        missing = [owner for owner in owners if owner["uid"] not in named]
        if not missing or self._controller_revisions is None:
            return
        try:
            self.kube.request(
                "PATCH",
                self._controller_revisions.path(self.namespace, item["metadata"]["name"]),
                {"metadata": {"ownerReferences": missing}},
                query={"fieldManager": FIELD_MANAGER},
                content_type="application/strategic-merge-patch+json",
            )
        except errors.ApiError as exc:  # it stays as it was: served all the same
            log.warning("revision %s not given its owner: %s", item["metadata"]["name"], exc)

    def numbers(self, name: str) -> list[int]:
        """The kind's revisions kept, oldest first."""
        return sorted(self._memory.get(name, {}))

    def unneeded(self, name: str, in_use: set[int]) -> list[int]:
        """The revisions of the kind ``prune`` would delete (``rollout.unneeded``)."""
        return rollout.unneeded(self._memory.get(name, {}), in_use)

    def prune(self, name: str, in_use: set[int]) -> None:
        """Delete the revisions of the kind nobody needs any more (``rollout.unneeded``)."""
        known = self._memory.get(name, {})
        for number in self.unneeded(name, in_use):
            files = known.pop(number)
            self._loaded.pop((name, number), None)
            if self._controller_revisions is not None:
                self.kube.delete(self._controller_revisions, f"{name}-{hash_of(files)}", self.namespace)
            log.info("kind %s: revision %d deleted: no parent needs it", name, number, extra={"kind": name})

    def _kind(self, name: str, number: int, files: dict[str, str]) -> kinds.Kind | None:
        """An older revision, loaded from its files (once); None if it no longer loads."""
        if (name, number) not in self._loaded:
            folder = self._dir / str(number) / name
            folder.mkdir(parents=True, exist_ok=True)
            for filename, text in files.items():
                if "/" not in filename:
                    (folder / filename).write_text(text)
            try:
                self._loaded[(name, number)] = self._bound(kinds.load_kind(folder))
            except errors.StencilError as exc:
                log.warning("kind %s: revision %d does not load: %s", name, number, exc)
                return None
        return self._loaded[(name, number)]

    # -- the KindRollout ---------------------------------------------------------

    def rollout(self, name: str) -> Obj | None:
        """The kind's KindRollout, created if it has none; None when kept in memory."""
        if self.rollouts is None:
            return None
        found = self.kube.get(self.rollouts, name)
        if found is None:
            body = {"apiVersion": GROUP_VERSION, "kind": ROLLOUT_KIND, "metadata": {"name": name}, "spec": {}}
            try:
                found = self.kube.apply(body, create_only=True)
            except errors.AlreadyExists:
                found = self.kube.get(self.rollouts, name)
        return found

    def patch_spec(self, name: str, spec: Mapping[str, Any]) -> None:
        """Merge ``spec`` into the KindRollout's (``None`` values remove their key)."""
        if self.rollouts is not None:
            self.kube.request(
                "PATCH",
                self.rollouts.path(None, name),
                {"spec": dict(spec)},
                content_type="application/merge-patch+json",
            )

    def write_status(self, name: str, status: Mapping[str, Any], *, manager: str | None = None) -> None:
        """The KindRollout's status, as the engine sees the rollout now (server-side applied).
        A sharded replica applies as a field manager of its own (``manager``), so that its entry
        in ``status.shares`` is its own and another replica's apply leaves it in place."""
        if self.rollouts is None:
            return
        body = {"apiVersion": GROUP_VERSION, "kind": ROLLOUT_KIND, "metadata": {"name": name}}
        if manager is None:
            self.kube.apply({**body, "status": dict(status)}, subresource="status")
            return
        self.kube.request(
            "PATCH",
            self.rollouts.path(None, name, "status"),
            transport.encoded({**body, "status": dict(status)}),
            query={"fieldManager": manager, "force": "true"},
            content_type="application/apply-patch+yaml",
        )

    def drop_shares(self, name: str, identities: list[str]) -> None:
        """Remove the shares of replicas no longer live from the KindRollout's status."""
        if self.rollouts is not None:
            self.kube.request(
                "PATCH",
                self.rollouts.path(None, name, "status"),
                {"status": {"shares": dict.fromkeys(identities)}},
                content_type="application/merge-patch+json",
            )
