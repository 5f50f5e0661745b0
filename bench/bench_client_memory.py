"""A replica's memory with the client configured from a kubeconfig and as in a pod.

``stencil run`` in a pod reads its service account without the official client
(``engine.runtime.cluster.incluster``); from a kubeconfig it imports the client to read it.  On a
local control plane, each way starts the engine in a process of its own, as ``stencil run`` does
(every shipped kind, no parents), waits for its caches to sync, and prints its resident memory.
The in-pod way gets a cluster-admin ServiceAccount's token and the plane's CA in a folder, and
the service's two variables (``bench.pods``).  Run: ``python bench/bench_client_memory.py
[ROUNDS]`` (default 3, alternated).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import pods  # noqa: E402
from engine.localcluster.plane import LocalCluster  # noqa: E402
from engine.runtime.cluster.kube import Kube  # noqa: E402
from engine.tools import manifests  # noqa: E402

# The engine as ``stencil run`` starts it, its client made the given way; prints its RSS and
# whether the official client was imported, once every cache has synced.
REPLICA = """
import json, sys, time
from pathlib import Path
from engine.runtime.cluster import incluster
from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import manager
import engine.tools.cli.operating.run
way, where = sys.argv[1], sys.argv[2]
if way == "in a pod":
    incluster.ACCOUNT = Path(where)
    kube = Kube.in_cluster()
else:
    kube = Kube.from_kubeconfig(where)
engine = manager.Engine(kube, Path(sys.argv[3]), manager.Options(run_workers=False))
engine.start()
while not engine.synced():
    time.sleep(0.1)
time.sleep(2)
pages = int(Path("/proc/self/statm").read_text().split()[1])
print(json.dumps({"rss_mib": pages * 4096 / 2**20, "official_client": "kubernetes" in sys.modules}))
engine.stop(grace=0)
"""


def replica(way: str, where: str, environ: dict[str, str]) -> dict[str, float]:
    ran = subprocess.run(
        [sys.executable, "-c", REPLICA, way, where, str(ROOT / "templates")],
        env={**environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return dict(json.loads(ran.stdout.strip().splitlines()[-1]))


def main(rounds: int = 3) -> None:
    with LocalCluster() as plane, tempfile.TemporaryDirectory() as scratch:
        kube = Kube.from_kubeconfig(str(plane.kubeconfig))
        manifests.install_project_crds(kube, ROOT)
        account = Path(scratch) / "serviceaccount"
        in_pod = pods.as_in_a_pod(kube, plane.kubeconfig, account)
        found: dict[str, list[dict[str, float]]] = {"kubeconfig": [], "in a pod": []}
        for _ in range(rounds):
            found["kubeconfig"].append(replica("kubeconfig", str(plane.kubeconfig), dict(os.environ)))
            found["in a pod"].append(replica("in a pod", str(account), in_pod))
    print("client from   RSS MiB once synced (each round)       official client imported")
    for way, runs in found.items():
        figures = ", ".join(f"{r['rss_mib']:.1f}" for r in runs)
        print(f"{way:12s}  {figures:36s}  {runs[0]['official_client']}")
    ours = sorted(r["rss_mib"] for r in found["in a pod"])
    theirs = sorted(r["rss_mib"] for r in found["kubeconfig"])
    median = theirs[len(theirs) // 2], ours[len(ours) // 2]
    print(f"median: {median[0]:.1f} MiB from a kubeconfig, {median[1]:.1f} MiB in a pod")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
