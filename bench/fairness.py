"""Another tenant's wait behind one tenant's backlog: a parent of tenant B, made while tenant A has
300 slow parents of the same kind waiting, is timed from its create to its child.

Starts its own plane (etcd and kube-apiserver), installs a CRD of its own (``Slow``,
bench.stencil.dev/v1, any spec) and runs the engine in this process with four workers.  A Slow
renders one ConfigMap after a loop of ``spec.spin`` turns (a tenth of a second of CPU here,
within the template's one second of wall-clock time even when four workers share the
interpreter), so tenant A's 300 parents keep the workers busy for as long as 300 renders take.
Once the workers have started on them, tenant B makes one parent, and the run prints how long
B's child took, how many of A's children existed by then, and A's time to its last child:

    python -m bench.fairness [A_PARENTS] [SPIN]   # 300 1000

Run it on two trees (``PYTHONPATH=<tree> python -m bench.fairness``) to compare a queue with
another: the figures are one run each, on one machine, so compare ratios.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from engine.localcluster.plane import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import manager
from engine.tools import manifests

GROUP = "bench.stencil.dev"
CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": f"slows.{GROUP}"},
    "spec": {
        "group": GROUP,
        "scope": "Namespaced",
        "names": {"plural": "slows", "singular": "slow", "kind": "Slow", "listKind": "SlowList"},
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "subresources": {"status": {}},
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                            "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                        },
                    }
                },
            }
        ],
    },
}
KIND_YAML = f"""\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent: {{apiVersion: {GROUP}/v1, kind: Slow}}
"""
TEMPLATE = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}-out\ndata:\n  spin: '{{ spec.spin }}'\n"
    "{% for i in range(spec.spin) %}{% for j in range(1000) %}{% set x = j > i %}{% endfor %}{% endfor %}\n"
)


def slow(name: str, spin: int) -> dict[str, Any]:
    return {"apiVersion": f"{GROUP}/v1", "kind": "Slow", "metadata": {"name": name}, "spec": {"spin": spin}}


def children(kube: Kube, namespace: str) -> int:
    found = kube.list(kube.resource("v1", "ConfigMap"), namespace)[0]
    return sum(1 for c in found if c["metadata"]["name"].endswith("-out"))


def main(n: int, spin: int) -> None:
    with LocalCluster() as cluster, tempfile.TemporaryDirectory() as scratch:
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        crds = Path(scratch) / "crds"
        crds.mkdir()
        (crds / "slow.yaml").write_text(yaml.safe_dump(CRD))
        manifests.install_crds(kube, crds)
        templates = Path(scratch) / "templates"
        (templates / "slow").mkdir(parents=True)
        (templates / "slow" / "kind.yaml").write_text(KIND_YAML)
        (templates / "slow" / "out.yaml").write_text(TEMPLATE)
        for namespace in ("tenant-a", "tenant-b"):
            kube.request("POST", "/api/v1/namespaces", {"metadata": {"name": namespace}})
        engine = manager.Engine(kube, templates, manager.Options(workers=4, resync=600))
        engine.start()
        manifests.apply_all(kube, [slow("warm", spin)], "tenant-b")  # the kind served, its caches filled
        wait("the first parent's child", lambda: children(kube, "tenant-b") == 1, 120)

        began = time.monotonic()
        manifests.apply_all(kube, [slow(f"a-{i:03d}", spin) for i in range(n)], "tenant-a")
        wait("the workers to start on tenant A", lambda: children(kube, "tenant-a") >= 4, 600)
        asked = time.monotonic()
        manifests.apply_all(kube, [slow("b", spin)], "tenant-b")
        wait("tenant B's child", lambda: children(kube, "tenant-b") == 2, 1800, pause=0.05)
        served = time.monotonic()
        a_then = children(kube, "tenant-a")
        wait("tenant A's children", lambda: children(kube, "tenant-a") == n, 1800)
        a_done = time.monotonic()
        engine.stop()
    print(f"tenant B's parent, made behind {n} of tenant A's: its child after {served - asked:.2f} s")
    print(f"  tenant A's children by then: {a_then} of {n}")
    print(f"  tenant A's {n} children: {a_done - began:.1f} s, {(a_done - began) / n * 1000:.0f} ms a parent")


def wait(what: str, probe: Any, timeout: float, pause: float = 0.2) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {timeout:.0f} s")
        time.sleep(pause)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 300, int(sys.argv[2]) if len(sys.argv) > 2 else 1000)
