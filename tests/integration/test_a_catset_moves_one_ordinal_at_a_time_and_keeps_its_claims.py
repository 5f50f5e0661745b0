"""examples/metacontroller/catset, Metacontroller's CatSet as a kind, on the real plane: it makes
its Pods one ordinal at a time, each only once the one below it is Ready (with the node
cordoned, the first never gets Ready and no second is made); a scale-down takes the highest Pod
first and the next only once it is gone, and keeps the claims of the Pods that went, which a
scale-up mounts again; a change of the Pod template that a Pod cannot take in place recreates
the Pods the highest first, never two down at once; and a deleted CatSet takes its Pods down
before their claims, as a watch of the Pods and the claims sees it."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.core.model.children import placement
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration import _examples
from tests.integration._engine import ROOT, condition_is, cordon, event_said, eventually, running_engine

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

KIND_DIR = ROOT / "examples" / "metacontroller" / "catset"
API_VERSION = "metacontroller.examples.stencil.dev/v1"


def _catset(replicas: int, env: list[dict[str, str]] | None = None) -> dict[str, Any]:
    container: dict[str, Any] = {
        "name": "web",
        "image": "nginx:1.27",
        "volumeMounts": [{"name": "www", "mountPath": "/usr/share/nginx/html"}],
    }
    if env:
        container["env"] = env
    return {
        "apiVersion": API_VERSION,
        "kind": "CatSet",
        "metadata": {"name": "c"},
        "spec": {
            "serviceName": "c",
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "c"}},
            "template": {
                "metadata": {"labels": {"app": "c"}},
                "spec": {"terminationGracePeriodSeconds": 1, "containers": [container]},
            },
            "volumeClaimTemplates": [
                {
                    "metadata": {"name": "www"},
                    "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
                }
            ],
        },
    }


@pytest.fixture
def catsets(kube: Kube, tmp_path: Path) -> Iterator[tuple[Resource, Path]]:
    templates = _examples.served(kube, KIND_DIR, tmp_path)
    yield kube.resource(API_VERSION, "CatSet"), templates


class Watched:
    """What a watch of one kind in the namespace sees of the parent's children, in order: an item
    ``(what, name)`` each time one is ``added``, turns ``ready`` (a Pod's Ready condition True),
    is ``going`` (has a deletionTimestamp) or is ``deleted``."""

    def __init__(self, kube: Kube, res: Resource, namespace: str) -> None:
        self.seen: list[tuple[str, str]] = []
        self.versions: list[int] = []  # the resourceVersion of each item of seen
        self._stop: list[Any] = []
        _, version = kube.list(res, namespace)
        args = (kube, res, namespace, version)
        self._thread = threading.Thread(target=self._record, args=args, daemon=True)
        self._thread.start()
        eventually(lambda: self._stop, what="the watch open")

    def _record(self, kube: Kube, res: Resource, namespace: str, version: str) -> None:
        said: set[tuple[str, str]] = set()  # (what, uid) said already
        selector = placement.PARENT_NAME_LABEL + "=c"
        for kind, obj in kube.watch(res, version, namespace, selector, on_open=self._stop.append):
            meta, uid = obj["metadata"], obj["metadata"].get("uid", "")
            conditions = {c["type"]: c["status"] for c in (obj.get("status") or {}).get("conditions") or []}
            for what, holds in (
                ("added", kind == "ADDED"),
                ("ready", kind != "DELETED" and conditions.get("Ready") == "True"),
                ("going", bool(meta.get("deletionTimestamp"))),
                ("deleted", kind == "DELETED"),
            ):
                if holds and (what, uid) not in said:
                    said.add((what, uid))
                    self.versions.append(int(meta["resourceVersion"]))
                    self.seen.append((what, meta["name"]))

    def since(self, mark: int) -> list[tuple[str, str]]:
        return self.seen[mark:]

    def version(self, mark: int, what: str) -> list[int]:
        """The resourceVersions of the items ``what`` seen since ``mark``."""
        return [v for (w, _), v in zip(self.seen[mark:], self.versions[mark:], strict=True) if w == what]

    def close(self) -> None:
        for stop in self._stop:
            stop()


def _pods(kube: Kube, namespace: str) -> list[str]:
    return sorted(p["metadata"]["name"] for p in kube.list(kube.resource("v1", "Pod"), namespace)[0])


def _claims(kube: Kube, namespace: str) -> dict[str, dict[str, Any]]:
    listed = kube.list(kube.resource("v1", "PersistentVolumeClaim"), namespace)[0]
    return {c["metadata"]["name"]: c for c in listed}


def _status(kube: Kube, res: Resource, namespace: str) -> dict[str, Any]:
    return (kube.get(res, "c", namespace) or {}).get("status") or {}


def _scaled(kube: Kube, res: Resource, namespace: str, replicas: int) -> Any:
    def probe() -> Any:
        status = _status(kube, res, namespace)
        done = (status.get("replicas"), status.get("readyReplicas")) == (replicas, replicas)
        return done and condition_is(kube, res, "c", namespace, "Ready", "True")()

    return probe


def _apply(kube: Kube, namespace: str, catset: dict[str, Any]) -> None:
    manifests.apply_all(kube, [catset], namespace)


def test_it_grows_and_shrinks_one_ordinal_at_a_time_and_keeps_the_claims(
    kube: Kube, namespace: str, catsets: tuple[Resource, Path]
) -> None:
    res, templates = catsets
    pods = Watched(kube, kube.resource("v1", "Pod"), namespace)
    try:
        with running_engine(kube, templates, namespace):
            with cordon(kube):
                _apply(kube, namespace, _catset(3))
                eventually(lambda: _pods(kube, namespace) == ["c-0"], what="c-0 made")
                time.sleep(3)  # c-0 cannot be scheduled, so never Ready: c-1 must not be made
                assert _pods(kube, namespace) == ["c-0"], pods.seen
                claims = _claims(kube, namespace)
                assert sorted(claims) == ["www-c-0", "www-c-1", "www-c-2"], sorted(claims)
            eventually(_scaled(kube, res, namespace, 3), what="3 Ready")
            grown = [item for item in pods.seen if item[0] in ("added", "ready")]
            assert grown == [
                ("added", "c-0"),
                ("ready", "c-0"),
                ("added", "c-1"),
                ("ready", "c-1"),
                ("added", "c-2"),
                ("ready", "c-2"),
            ], pods.seen

            mark = len(pods.seen)
            uids = {name: claim["metadata"]["uid"] for name, claim in _claims(kube, namespace).items()}
            _apply(kube, namespace, _catset(1))
            eventually(_scaled(kube, res, namespace, 1), what="1 Ready")
            eventually(lambda: _pods(kube, namespace) == ["c-0"], what="c-1 and c-2 gone")
            shrunk = [item for item in pods.since(mark) if item[0] in ("going", "deleted")]
            # The highest first, and the next only once it is gone.
            assert shrunk == [
                ("going", "c-2"),
                ("deleted", "c-2"),
                ("going", "c-1"),
                ("deleted", "c-1"),
            ], pods.since(mark)
            kept = _claims(kube, namespace)
            assert {name: c["metadata"]["uid"] for name, c in kept.items()} == uids  # every claim kept
            parent_uid = kube.get(res, "c", namespace)["metadata"]["uid"]
            for claim in kept.values():
                assert not claim["metadata"].get("deletionTimestamp"), claim["metadata"]
                owners = [o["uid"] for o in claim["metadata"].get("ownerReferences") or []]
                assert owners == [parent_uid], claim["metadata"]  # still the CatSet's

            _apply(kube, namespace, _catset(2))
            eventually(_scaled(kube, res, namespace, 2), what="2 Ready")
            pod = kube.get(kube.resource("v1", "Pod"), "c-1", namespace)
            volumes = {v["name"]: v for v in pod["spec"]["volumes"]}
            assert volumes["www"]["persistentVolumeClaim"]["claimName"] == "www-c-1"
            assert _claims(kube, namespace)["www-c-1"]["metadata"]["uid"] == uids["www-c-1"]
    finally:
        pods.close()


def test_a_template_change_recreates_the_highest_first_and_a_deletion_takes_pods_before_claims(
    kube: Kube, namespace: str, catsets: tuple[Resource, Path]
) -> None:
    res, templates = catsets
    pods = Watched(kube, kube.resource("v1", "Pod"), namespace)
    claims = Watched(kube, kube.resource("v1", "PersistentVolumeClaim"), namespace)
    try:
        with running_engine(kube, templates, namespace):
            _apply(kube, namespace, _catset(3))
            eventually(_scaled(kube, res, namespace, 3), what="3 Ready")
            before = {
                p: kube.get(kube.resource("v1", "Pod"), p, namespace)["metadata"]["uid"]
                for p in _pods(kube, namespace)
            }

            mark = len(pods.seen)
            env = [{"name": "COLOR", "value": "blue"}]  # a Pod's env cannot change in place
            _apply(kube, namespace, _catset(3, env))

            def rolled() -> bool:
                found = [kube.get(kube.resource("v1", "Pod"), p, namespace) for p in before]
                return all(
                    p is not None
                    and p["metadata"]["uid"] != before[p["metadata"]["name"]]
                    and p["spec"]["containers"][0].get("env") == env
                    for p in found
                ) and bool(_scaled(kube, res, namespace, 3)())

            eventually(rolled, what="every Pod recreated with COLOR")
            eventually(event_said(kube, namespace, "Recreating"), what="a Recreating event")
            rolled_seen = pods.since(mark)
            deleted = [name for what, name in rolled_seen if what == "deleted"]
            assert deleted == ["c-2", "c-1", "c-0"], rolled_seen  # the highest first
            down = peak = 0
            for what, _ in rolled_seen:
                down += 1 if what == "going" else -1 if what == "ready" else 0
                peak = max(peak, down)
            assert peak == 1, rolled_seen  # maxUnavailable: 1, counted from going to Ready again

            pods_mark, claims_mark = len(pods.seen), len(claims.seen)
            kube.delete(res, "c", namespace)
            eventually(lambda: kube.get(res, "c", namespace) is None, what="the CatSet gone")
            eventually(lambda: not _pods(kube, namespace) and not _claims(kube, namespace), what="all gone")
            eventually(lambda: len(pods.version(pods_mark, "deleted")) == 3, what="the Pods' deletions")
            eventually(lambda: len(claims.version(claims_mark, "deleted")) == 3, what="the claims' deletions")
            went = {name for what, name in pods.since(pods_mark) if what == "deleted"}
            assert went == set(before), pods.since(pods_mark)
            going = {name for what, name in claims.since(claims_mark) if what == "going"}
            assert going == {"www-c-0", "www-c-1", "www-c-2"}, claims.since(claims_mark)
            # kwok takes a deleted Pod's finalizers off, so no Pod can be held here to show the claims
            # waiting; the plane's resourceVersions (etcd's revisions, one order for every object)
            # show it instead: every Pod was gone before the first claim was deleted.
            last_pod = max(pods.version(pods_mark, "deleted"))
            first_claim = min(claims.version(claims_mark, "going"))
            assert last_pod < first_claim, (pods.since(pods_mark), claims.since(claims_mark))
            eventually(event_said(kube, namespace, "TearingDown", "Pod c-"), what="a TearingDown event")
    finally:
        pods.close()
        claims.close()
