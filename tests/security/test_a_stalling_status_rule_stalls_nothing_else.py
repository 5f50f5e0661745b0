"""A tenant's parent whose status rule would compute ``3 ** 10**8`` (minutes of one C-level
operation holding the interpreter lock) stalls nothing else: with one worker per kind, the
engine process (``stencil run``) answers ``/healthz`` within a second throughout, another
parent of the same kind and one of another kind converge, the stalling parent's condition
says the rule went over its budget at kind.yaml's line, and SIGTERM stops the engine within
the chart's grace period."""

from __future__ import annotations

import shutil
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually
from tests.integration._process import engine_process
from tests.integration._widgets import KIND_YAML, VALUE_CONFIGMAP, widget, write_kind

RULES = """\
status:
  conditions:
    - type: Powered
      status: "spec.b ** spec.e > 0"
"""
RULE_LINE = (KIND_YAML + RULES).splitlines().index('      status: "spec.b ** spec.e > 0"') + 1
GRACE_SECONDS = 30  # the chart's terminationGracePeriodSeconds


class HealthWatch(threading.Thread):
    """Asks ``/healthz`` every 100 ms and keeps the slowest answer (a failure counts as forever)."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.slowest = 0.0
        self.asked = 0
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.1):
            started = time.monotonic()
            try:
                with urllib.request.urlopen(self.url, timeout=5) as response:
                    took = time.monotonic() - started if response.status == 200 else float("inf")
            except OSError:
                took = float("inf")
            self.slowest = max(self.slowest, took)
            self.asked += 1


def test_a_stalling_status_rule_stalls_nothing_else(
    kube: Kube, namespace: str, widgets: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"data.yaml": VALUE_CONFIGMAP}, RULES)
    shutil.copytree(ROOT / "templates" / "network", templates / "network")
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    args = ("--namespace", namespace, "--templates", str(templates), "--workers", "1")
    with engine_process(local_cluster.kubeconfig, tmp_path / "engine.log", *args) as engine:
        eventually(engine.ready, what="/readyz after the caches synced")
        watch = HealthWatch(f"http://127.0.0.1:{engine.probe_port}/healthz")
        watch.start()

        stalling = widget("stall", value="s", b=3, e=10**8)
        calm = widget("calm", value="c", b=3, e=2)
        network = {
            "apiVersion": "samplecrd.k8s.io/v1",
            "kind": "Network",
            "metadata": {"name": "net"},
            "spec": {"cidr": "10.0.0.0/24", "gateway": "10.0.0.1"},
        }
        manifests.apply_all(kube, [stalling], namespace)
        manifests.apply_all(kube, [calm, network], namespace)

        eventually(condition_is(kube, widgets, "calm", namespace, "Powered", "True"), what="calm Powered")
        eventually(condition_is(kube, widgets, "calm", namespace, "Ready", "True"), what="calm Ready")
        eventually(condition_is(kube, networks, "net", namespace, "Ready", "True"), what="Network Ready")
        powered = eventually(
            lambda: conditions(kube.get(widgets, "stall", namespace)).get("Powered"), what="stall's Powered"
        )
        time.sleep(2.0)  # /healthz keeps being asked while the engine goes on
        watch.done.set()
        watch.join()

        assert powered["status"] == "Unknown", powered
        assert powered["reason"] == "OverBudget", powered
        assert f"kind.yaml:{RULE_LINE}: " in powered["message"], powered["message"]
        assert "`**`" in powered["message"], powered["message"]
        assert watch.asked > 10
        assert watch.slowest < 1.0, f"/healthz took {watch.slowest:.1f}s to answer"

        started = time.monotonic()
        engine.stop(timeout=GRACE_SECONDS)
        assert time.monotonic() - started < GRACE_SECONDS
