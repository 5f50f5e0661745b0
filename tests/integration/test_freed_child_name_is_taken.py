"""A parent refused a child's name (ChildConflict) takes it within 10 s of the holder's child
being garbage-collected after the holder's deletion: between two Widgets, and between the shipped
kinds, a MySQLCluster ``web-service`` and a DeployWebService ``web`` both rendering Service
``web-service``."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine
from tests.integration._widgets import SHARED_NAME_CONFIGMAP, widget, write_kind

TAKEN_WITHIN = 10.0  # the acceptance bound, from the moment the old child is gone


class Versions:
    """When each object of one name appeared and went, as a watch of its namespace sees it:
    timings to the millisecond, without polling."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, str, str]] = []  # (monotonic time, ADDED/DELETED, uid)
        self.lock = threading.Lock()

    def first(self, type_: str, uid: Callable[[str], bool]) -> float | None:
        with self.lock:
            return next((t for t, ty, u in self.seen if ty == type_ and uid(u)), None)


@contextlib.contextmanager
def versions_of(kube: Kube, res: Resource, name: str, namespace: str) -> Iterator[Versions]:
    versions = Versions()
    _, resource_version = kube.list(res, namespace)
    stops: list[Callable[[], None]] = []

    def run() -> None:
        with contextlib.suppress(Exception):  # ended from outside: the stream breaks
            for type_, obj in kube.watch(res, resource_version, namespace, on_open=stops.append):
                if obj["metadata"]["name"] == name and type_ in ("ADDED", "DELETED"):
                    with versions.lock:
                        versions.seen.append((time.monotonic(), type_, obj["metadata"]["uid"]))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        eventually(lambda: stops, what=f"the watch of {res.plural} to open")
        yield versions
    finally:
        for stop in stops:
            stop()
        thread.join(5)


def held_by(
    kube: Kube, res: Resource, name: str, namespace: str, parents: Resource, parent: str
) -> Callable[[], dict[str, Any] | None]:
    """The child once ``parent`` controls it and is Ready."""

    def probe() -> dict[str, Any] | None:
        holder = kube.get(parents, parent, namespace)
        child = kube.get(res, name, namespace)
        if holder is None or child is None:
            return None
        if conditions(holder).get("Ready", {}).get("status") != "True":
            return None
        owners = [o["uid"] for o in child["metadata"].get("ownerReferences") or () if o.get("controller")]
        return child if owners == [holder["metadata"]["uid"]] else None

    return probe


def free_and_take(
    kube: Kube, old: dict[str, Any], parents: Resource, waiting: str, delete: Callable[[], bool]
) -> tuple[dict[str, Any], float, float]:
    """``delete`` the holder; once garbage collection has removed its child ``old``, the
    ``waiting`` parent must hold a new child of that name and be Ready within ``TAKEN_WITHIN``.
    Returns the new child, and how long after the old one went the new one was created and the
    parent was seen Ready."""
    res = kube.resource(old["apiVersion"], old["kind"])
    name, namespace, old_uid = (old["metadata"][k] for k in ("name", "namespace", "uid"))
    with versions_of(kube, res, name, namespace) as versions:
        assert delete()
        freed = eventually(
            lambda: versions.first("DELETED", lambda uid: uid == old_uid),
            what=f"the holder's {res.kind} to be garbage-collected",
        )
        taken = eventually(
            held_by(kube, res, name, namespace, parents, waiting),
            timeout=max(freed + TAKEN_WITHIN - time.monotonic(), 0.0),
            what=f"{waiting} to take the freed name and be Ready",
        )
        ready = time.monotonic() - freed
        created = versions.first("ADDED", lambda uid: uid != old_uid)
    assert created is not None and created >= freed
    assert ready < TAKEN_WITHIN
    return taken, created - freed, ready


def in_conflict(kube: Kube, res: Resource, name: str, namespace: str) -> Callable[[], Any]:
    def probe() -> Any:
        obj = kube.get(res, name, namespace)
        applied = conditions(obj).get("ChildrenApplied", {})
        return obj if (applied.get("status"), applied.get("reason")) == ("False", "ChildConflict") else None

    return probe


def test_freed_child_name_is_taken_by_the_waiting_widget(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"configmap.yaml": SHARED_NAME_CONFIGMAP})
    configmaps = kube.resource("v1", "ConfigMap")

    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("a", shared="shared")], namespace)
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
        old = kube.get(configmaps, "shared", namespace)
        assert old is not None and old["data"] == {"parent": "a"}

        manifests.apply_all(kube, [widget("b", shared="shared")], namespace)
        eventually(in_conflict(kube, widgets, "b", namespace), what="b in ChildConflict")

        taken, took, ready = free_and_take(
            kube, old, widgets, "b", lambda: kube.delete(widgets, "a", namespace)
        )
    print(f"\nfreed ConfigMap name created again by b after {took:.3f} s, b Ready after {ready:.3f} s")
    assert taken["data"] == {"parent": "b"}


def test_freed_service_name_passes_from_a_mysqlcluster_to_a_deploywebservice(
    kube: Kube, namespace: str, dws: Resource
) -> None:
    # DeployWebService <name> renders Service <name>-service; MySQLCluster <name> renders
    # Service <name> (and StatefulSet <name>): "web" and "web-service" want the same Service.
    clusters = kube.resource("database.example.com/v1alpha1", "MySQLCluster")
    services = kube.resource("v1", "Service")
    cluster = {
        "apiVersion": "database.example.com/v1alpha1",
        "kind": "MySQLCluster",
        "metadata": {"name": "web-service"},
        "spec": {"size": 1, "version": "8.0"},
    }
    web = {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": "web"},
        "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
    }

    with running_engine(kube, ROOT / "templates", namespace):
        holder = manifests.apply_all(kube, [cluster], namespace)[0]

        def held_by_cluster() -> dict[str, Any] | None:
            service = kube.get(services, "web-service", namespace)
            owners = [o["uid"] for o in (service or {}).get("metadata", {}).get("ownerReferences") or ()]
            return service if owners == [holder["metadata"]["uid"]] else None

        old = eventually(held_by_cluster, what="the MySQLCluster's Service")

        manifests.apply_all(kube, [web], namespace)
        refused = eventually(in_conflict(kube, dws, "web", namespace), what="the DeployWebService refused")
        assert "Service" in conditions(refused)["ChildrenApplied"]["message"]
        # Its other child is not held up: once the Deployment is Available, only the Service
        # stands between the DeployWebService and Ready.
        eventually(
            condition_is(kube, dws, "web", namespace, "DeploymentAvailable", "True"),
            what="the DeployWebService's Deployment Available",
        )

        taken, took, ready = free_and_take(
            kube, old, dws, "web", lambda: kube.delete(clusters, "web-service", namespace)
        )
    print(f"\nfreed Service name created again by web after {took:.3f} s, web Ready after {ready:.3f} s")
    assert taken["spec"]["type"] == "NodePort"
