"""A tenant's large parents cannot take the engine's memory.  Forty Widgets of 1.4 MB each
(under etcd's 1.5 MiB object limit), the worst shape for a decoder (a list of empty objects:
three bytes of JSON, seventy of Python each), are created, converge, are reconciled again by a
kind reload and resynced: ``stencil run``'s peak resident memory, its own process's, stays
under the chart's default memory limit.  The cache keeps parents as their JSON; what decodes
them at once (a reload, a resync) would hold all forty decoded, over a gibibyte."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import yaml

from engine.runtime.cluster.kube import Kube, Resource
from tests.integration._engine import ROOT, eventually
from tests.integration._process import engine_process
from tests.integration._widgets import API_VERSION, VALUE_CONFIGMAP, write_kind

PARENTS = 40
SIZE = 1_400_000  # bytes of JSON per parent
RESYNC = 4.0
TEMPLATE = VALUE_CONFIGMAP + "  word: %s\n"  # the word changes with a kind reload


def chart_memory_limit_mib() -> float:
    values = yaml.safe_load((ROOT / "charts" / "stencil" / "values.yaml").read_text())
    limit = values["resources"]["limits"]["memory"]
    number, unit = re.fullmatch(r"(\d+)(Mi|Gi)", limit).groups()  # type: ignore[union-attr]
    return int(number) * (1024 if unit == "Gi" else 1)


def large_widget(name: str) -> dict[str, Any]:
    obj = {"apiVersion": API_VERSION, "kind": "Widget", "metadata": {"name": name}, "spec": {"value": name}}
    room = SIZE - len(json.dumps(obj, separators=(",", ":")))
    obj["spec"]["filler"] = [{}] * (room // 3)
    return obj


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def test_forty_large_parents_keep_the_engine_under_the_charts_memory_limit(
    kube: Kube, local_cluster: Any, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    limit = chart_memory_limit_mib()
    templates = write_kind(tmp_path / "templates", {"data.yaml": TEMPLATE % "first"})
    configmaps = kube.resource("v1", "ConfigMap")
    names = [f"large-{i}" for i in range(PARENTS)]
    for name in names:
        body = json.dumps(large_widget(name), separators=(",", ":")).encode()
        kube.request("POST", widgets.path(namespace), body)

    def converged(word: str) -> bool:
        listing = kube.request("GET", configmaps.path(namespace))
        data = {cm["metadata"]["name"]: cm.get("data") or {} for cm in listing["items"]}
        return all(data.get(f"{name}-data") == {"value": name, "word": word} for name in names)

    log = tmp_path / "engine.log"
    args = ("--templates", str(templates), "--namespace", namespace, "--resync", str(RESYNC))
    with engine_process(local_cluster.kubeconfig, log, *args) as engine:
        pid = engine.process.pid
        try:
            eventually(lambda: converged("first"), timeout=180, what="forty large parents converged")
        except AssertionError:
            print(engine.output()[-6000:], peak_rss_mib(pid))
            raise
        after_start = peak_rss_mib(pid)
        write_kind(templates, {"data.yaml": TEMPLATE % "second"})  # a kind reload: every parent again
        eventually(lambda: converged("second"), timeout=180, what="forty large parents reloaded")
        time.sleep(3 * RESYNC)  # resyncs: every cached parent delivered again
        peak = peak_rss_mib(pid)
        print(f"engine peak RSS: {after_start:.0f} MiB after creation, {peak:.0f} MiB after a reload")
        assert engine.process.poll() is None, engine.output()[-3000:]
    assert peak < limit, f"the engine's peak RSS {peak:.0f} MiB is over the chart's limit of {limit:.0f} MiB"
