"""``stencil migrate`` on the real plane: 10,000 objects of a CRD stored at ``v1alpha1``, the storage
version switched to ``v1``, the command killed (SIGKILL) once its state ConfigMap records progress,
run again.  The second run goes on from the record (the API server counts its PUTs: exactly those
the first did not record), etcd itself holds every object at ``v1``, ``status.storedVersions`` is
``[v1]``, and ``v1alpha1`` may then leave ``spec.versions``, which the API server refused before
the trim.  A second CRD's run from a record whose continue token expired (etcd compacted past it)
lists again from the first object and says so."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import errors
from engine.core.offline import migration
from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import write_requests
from engine.tools import manifests
from tests.integration._engine import ROOT, eventually

OBJECTS = 10_000  # made in about 30 s with 16 at once on a loaded 2-core machine
CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


def crd(group: str, plural: str, kind: str) -> dict[str, Any]:
    schema = {
        "openAPIV3Schema": {
            "type": "object",
            "properties": {"spec": {"type": "object", "properties": {"index": {"type": "integer"}}}},
        }
    }
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "singular": kind.lower(), "kind": kind, "listKind": f"{kind}List"},
            "conversion": {"strategy": "None"},
            "versions": [
                {"name": "v1alpha1", "served": True, "storage": True, "schema": schema},
                {"name": "v1", "served": True, "storage": False, "schema": schema},
            ],
        },
    }


@contextlib.contextmanager
def installed(kube: Kube, tmp_path: Path, group: str, plural: str, kind: str) -> Iterator[str]:
    """The CRD installed and served; deleted at the end, its objects with it."""
    folder = tmp_path / plural
    folder.mkdir()
    (folder / "crd.yaml").write_text(json.dumps(crd(group, plural, kind)))  # JSON is YAML
    [name] = manifests.install_crds(kube, folder)
    try:
        yield name
    finally:
        with contextlib.suppress(errors.NotFound):
            kube.request("DELETE", f"{CRDS}/{name}")


def create(kube: Kube, res: Resource, namespace: str, count: int) -> float:
    """``count`` objects at ``v1alpha1``, made 16 at once; the seconds it took."""
    began = time.monotonic()

    def one(index: int) -> None:
        body = {"apiVersion": res.api_version, "kind": res.kind, "metadata": {"name": f"o-{index:05}"}}
        kube.request("POST", res.path(namespace), {**body, "spec": {"index": index}})

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(one, range(count)))
    return time.monotonic() - began


def etcd(local_cluster: Any, call: str, body: dict[str, Any]) -> Any:
    """etcd's JSON gateway: ``call`` (``range``, ``compaction``) with ``body``."""
    request = urllib.request.Request(f"{local_cluster.etcd}/v3/kv/{call}", json.dumps(body).encode())
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.load(answer)


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def stored(local_cluster: Any, group: str, plural: str) -> Counter[str]:
    """The apiVersion each object of the CRD is stored at, counted, as etcd holds them."""
    prefix = f"/registry/{group}/{plural}/"
    found = etcd(local_cluster, "range", {"key": b64(prefix), "range_end": b64(prefix[:-1] + "0")})
    return Counter(json.loads(base64.b64decode(kv["value"]))["apiVersion"] for kv in found.get("kvs", ()))


def store_at_v1(kube: Kube, local_cluster: Any, name: str, res: Resource, namespace: str) -> int:
    """Make ``v1`` the storage version, and wait until the server stores new objects at it; the
    objects made to see (the last stored at ``v1``, those before it at ``v1alpha1``)."""
    body = kube.request("GET", f"{CRDS}/{name}")
    for version in body["spec"]["versions"]:
        version["storage"] = version["name"] == "v1"
    kube.request("PUT", f"{CRDS}/{name}", body)
    made: list[str] = []

    def probe() -> bool:
        made.append(f"probe-{len(made)}")
        meta = {"name": made[-1], "namespace": namespace}
        kube.request(
            "POST", res.path(namespace), {"apiVersion": res.api_version, "kind": res.kind, "metadata": meta}
        )
        key = f"/registry/{res.group}/{res.plural}/{namespace}/{made[-1]}"
        [kv] = etcd(local_cluster, "range", {"key": b64(key)})["kvs"]
        return bool(json.loads(base64.b64decode(kv["value"]))["apiVersion"] == f"{res.group}/v1")

    eventually(probe, timeout=30, what="objects stored at v1", interval=0.5)
    return len(made)


def migrate(local_cluster: Any, name: str, namespace: str, log: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable,
        "-m",
        "engine.tools.cli",
        "migrate",
        name,
        "--kubeconfig",
        str(local_cluster.kubeconfig),
    ]
    with log.open("wb") as out:
        return subprocess.Popen(
            [*command, "--state-namespace", namespace, "--workers", "16"],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )


def finished(process: subprocess.Popen[bytes], log: Path, timeout: float = 150) -> str:
    code = process.wait(timeout=timeout)
    output = log.read_text()
    assert code == 0, output
    return output


def state(kube: Kube, namespace: str, name: str) -> migration.Progress | None:
    try:
        found = kube.request("GET", f"/api/v1/namespaces/{namespace}/configmaps/{migration.state_name(name)}")
    except errors.NotFound:
        return None
    return migration.from_data(found["data"])


def without_v1alpha1(kube: Kube, name: str) -> None:
    body = kube.request("GET", f"{CRDS}/{name}")
    body["spec"]["versions"] = [v for v in body["spec"]["versions"] if v["name"] != "v1alpha1"]
    kube.request("PUT", f"{CRDS}/{name}", body)


def test_a_killed_migration_resumes_and_every_object_is_stored_at_v1(
    kube: Kube, namespace: str, local_cluster: Any, tmp_path: Path
) -> None:
    group, plural = "migrate.tests.stencil.dev", "gadgets"
    with installed(kube, tmp_path, group, plural, "Gadget") as name:
        res = kube.resource(f"{group}/v1alpha1", "Gadget")
        seconds = create(kube, res, namespace, OBJECTS)
        total = OBJECTS + store_at_v1(kube, local_cluster, name, res, namespace)
        # The server takes up the new storage version a moment after the CRD says it: the probe
        # that found it is the one object stored at v1.
        assert stored(local_cluster, group, plural) == {f"{group}/v1alpha1": total - 1, f"{group}/v1": 1}
        puts = f"PUT {plural}"
        before = write_requests(kube)[puts]
        began = time.monotonic()

        first = migrate(local_cluster, name, namespace, tmp_path / "first.log")
        try:
            eventually(
                lambda: (s := state(kube, namespace, name)) and s.counts.done >= 2000,
                timeout=90,
                interval=0.05,
            )
        finally:
            first.send_signal(signal.SIGKILL)
            first.wait()
        killed = state(kube, namespace, name)
        assert killed is not None and not killed.listed and 0 < killed.counts.done < total, killed
        at_kill = stored(local_cluster, group, plural)
        assert at_kill[f"{group}/v1alpha1"] > 0 and at_kill[f"{group}/v1"] >= killed.counts.done
        with pytest.raises(errors.Invalid, match="storedVersions"):  # not yet: objects may be stored at it
            without_v1alpha1(kube, name)
        counted = write_requests(kube)[puts]

        output = finished(
            migrate(local_cluster, name, namespace, tmp_path / "second.log"), tmp_path / "second.log"
        )
        took = time.monotonic() - began

        assert f"resuming after the {killed.counts.done} objects an earlier run rewrote" in output
        assert f"this run wrote back {total - killed.counts.done} objects" in output
        assert write_requests(kube)[puts] - counted == total - killed.counts.done  # the rest, once each
        assert f"{name}: {total} objects stored at v1:" in output
        assert "status.storedVersions: trimmed v1alpha1; now [v1]" in output
        assert stored(local_cluster, group, plural) == {f"{group}/v1": total}  # etcd's own word
        assert kube.request("GET", f"{CRDS}/{name}")["status"]["storedVersions"] == ["v1"]
        assert state(kube, namespace, name) is None
        without_v1alpha1(kube, name)  # accepted now
        print(
            f"\n{OBJECTS} objects made in {seconds:.1f}s; migrated in {took:.1f}s with a kill after "
            f"{killed.counts.done} ({write_requests(kube)[puts] - before} PUTs in all)"
        )


def test_a_migration_whose_recorded_token_expired_lists_again_from_the_first_object(
    kube: Kube, namespace: str, local_cluster: Any, tmp_path: Path
) -> None:
    group, plural = "expire.tests.stencil.dev", "gizmos"
    with installed(kube, tmp_path, group, plural, "Gizmo") as name:
        res = kube.resource(f"{group}/v1alpha1", "Gizmo")
        create(kube, res, namespace, 300)
        total = 300 + store_at_v1(kube, local_cluster, name, res, namespace)
        # A continue token of this listing, from a revision etcd then compacts away: a token the
        # server's cache holds no snapshot of, and etcd no longer has.
        page = kube.request("GET", f"/apis/{group}/v1/{plural}", query={"limit": "100"})
        token = json.loads(base64.urlsafe_b64decode(page["metadata"]["continue"] + "=="))
        token["rv"] = 2
        revision = etcd(local_cluster, "range", {"key": b64("/registry/")})["header"]["revision"]
        etcd(local_cluster, "compaction", {"revision": revision})
        target = migration.target(kube.request("GET", f"{CRDS}/{name}"))
        recorded = migration.Progress(
            name,
            target.uid,
            "v1",
            base64.urlsafe_b64encode(json.dumps(token).encode()).decode().rstrip("="),
            migration.Counts(100),
        )
        body = {"apiVersion": "v1", "kind": "ConfigMap", "data": migration.as_data(recorded)}
        body["metadata"] = {"name": migration.state_name(name), "namespace": namespace}
        kube.request("POST", f"/api/v1/namespaces/{namespace}/configmaps", body)

        log = tmp_path / "expired.log"
        output = finished(migrate(local_cluster, name, namespace, log), log)

        assert "resuming after the 100 objects an earlier run rewrote" in output
        assert (
            "the continue token has expired (410" in output
            and "listing again from the first object" in output
        )
        assert f"this run wrote back {total} objects" in output
        assert stored(local_cluster, group, plural) == {f"{group}/v1": total}
        assert kube.request("GET", f"{CRDS}/{name}")["status"]["storedVersions"] == ["v1"]
