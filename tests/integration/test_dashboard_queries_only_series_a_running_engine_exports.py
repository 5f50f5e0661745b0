"""The chart's Grafana dashboard cannot rot: every series its queries (and its variables) read
is a family a running ``stencil run`` declares on its live ``/metrics``, after it reconciled a
parent, and the panels new to it (parents by Ready, answers by code) have samples then."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests import _promql
from tests.integration._engine import ROOT, condition_is, eventually
from tests.integration._process import engine_process, samples

DASHBOARD = ROOT / "charts" / "stencil" / "dashboards" / "stencil.json"
KIND_DIR = ROOT / "templates" / "deploywebservice"


def queries(dashboard: dict[str, Any]) -> list[str]:
    found = [t["expr"] for panel in dashboard["panels"] for t in panel.get("targets", [])]
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            series = _promql.label_values_metric(variable["query"]["query"])
            assert series is not None, f"variable {variable['name']}: not a label_values() query"
            found.append(series)
    return found


def unexported(names: set[str], families: dict[str, str]) -> list[str]:
    """The names that are no series of a declared family: a histogram only by its suffixes."""
    missing = []
    for name in sorted(names):
        kind = families.get(_promql.family(name))
        if name in families and families[name] != "histogram":
            continue
        if name != _promql.family(name) and kind == "histogram":
            continue
        missing.append(name)
    return missing


def test_every_dashboard_query_names_a_series_the_engine_exports(
    kube: Kube, namespace: str, dws: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    expressions = queries(dashboard)
    names = set().union(*(_promql.metric_names(e) for e in expressions))
    assert len(expressions) >= 20 and len(names) >= 15, names  # the parser found what is there

    templates = tmp_path / "templates"
    shutil.copytree(KIND_DIR, templates / KIND_DIR.name)
    args = ("--namespace", namespace, "--templates", str(templates))
    with engine_process(local_cluster.kubeconfig, tmp_path / "engine.log", *args) as engine:
        eventually(engine.ready, what="/readyz after the caches synced")
        parent = {
            "apiVersion": "operator.wujiuye.com/v1beta1",
            "kind": "DeployWebService",
            "metadata": {"name": "watched"},
            "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
        }
        manifests.apply_all(kube, [parent], namespace)
        eventually(
            condition_is(kube, dws, "watched", namespace, "Ready", "True"),
            what="the parent Ready",
        )
        eventually(
            lambda: engine.metric("stencil_parents", controller="deploywebservice", ready="True") == [1.0],
            what="the parent counted Ready",
        )
        status, exposition = engine.get("/metrics")
        assert status == 200, engine.output()

    families = _promql.exported(exposition)
    assert unexported(names, families) == [], (
        f"the dashboard reads series the engine does not export: {families}"
    )
    written = samples(exposition, "rest_client_requests_total", method="PATCH", code="200")
    assert written and sum(written) >= 1
    assert samples(exposition, "stencil_status_writes_total", kind="deploywebservice")[0] >= 1
