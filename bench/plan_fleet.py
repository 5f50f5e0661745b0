"""How long ``stencil plan`` takes on a local control plane with N parents of each shipped kind.

    python3 -m bench.plan_fleet [N]

Starts a local control plane, installs the CRDs, creates N copies of each kind's first
example in one namespace, lets the engine converge them for up to two minutes, then times
``stencil plan templates/<kind>`` (as a process, so start-up counts) for each kind.
"""

from __future__ import annotations

import copy
import subprocess
import sys
import time
from pathlib import Path

from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.runtime.serving import manager
from engine.tools import manifests

ROOT = Path(__file__).resolve().parents[1]
NAMESPACE = "plan-bench"


def main(count: int) -> None:
    kind_dirs = sorted(p for p in (ROOT / "templates").iterdir() if (p / "kind.yaml").is_file())
    with LocalCluster(nodes=1) as cluster:
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        manifests.install_project_crds(kube, ROOT)
        kube.request(
            "POST",
            "/api/v1/namespaces",
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
        )
        time.sleep(2)
        for kind_dir in kind_dirs:
            example = manifests.read(manifests.yaml_files(kind_dir / "examples"))[0]
            copies = []
            for index in range(count):
                cr = copy.deepcopy(example)
                cr["metadata"] = {"name": f"{example['metadata']['name']}-{index:04}"}
                copies.append(cr)
            manifests.apply_all(kube, copies, NAMESPACE)
        engine = manager.Engine(kube, ROOT / "templates", manager.Options(namespaces=(NAMESPACE,), workers=4))
        engine.start()
        started = time.monotonic()
        idle_polls = 0  # idle twice in a row, once synced: one idle poll can fall between two events
        while time.monotonic() - started < 300 and idle_polls < 2:
            time.sleep(2)
            idle = engine.synced() and all(
                c.queue.depth == 0 and c.queue.processing() == 0 for c in engine.workers.values()
            )
            idle_polls = idle_polls + 1 if idle else 0
        engine.stop()
        print(f"engine ran {time.monotonic() - started:.0f}s", flush=True)
        began = time.monotonic()
        subprocess.run([sys.executable, "-m", "engine.tools.cli", "--help"], capture_output=True, cwd=ROOT)
        print(f"the CLI's start-up alone: {time.monotonic() - began:.2f}s", flush=True)
        for kind_dir in kind_dirs:
            args = [
                sys.executable,
                "-m",
                "engine.tools.cli",
                "plan",
                str(kind_dir),
                "--kubeconfig",
                str(cluster.kubeconfig),
            ]
            began = time.monotonic()
            result = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
            took = time.monotonic() - began
            # The parents' line, after the lines of the kind's API (``API of ...`` and its findings).
            said = [
                line for line in result.stdout.splitlines() if line and not line.startswith(("API of ", " "))
            ]
            head = said[0] if said else result.stderr
            print(f"{kind_dir.name}: {took:.2f}s exit {result.returncode}: {head}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
