"""The chart's Grafana dashboard, as `helm template` renders it: no ConfigMap by default; when
enabled, one carrying the label Grafana's sidecar selects (``grafana_dashboard: "1"`` unless
told otherwise), the folder annotation when a folder is given, and the dashboard file as is."""

from __future__ import annotations

import json

from tests.unit._chart import CHART, FULLNAME, NAMESPACE, of_kind, render, template

DASHBOARD = f"{FULLNAME}-dashboard"


def test_no_dashboard_by_default() -> None:
    assert not [name for name in of_kind(render(), "ConfigMap") if name.endswith(DASHBOARD)]


def test_enabled_dashboard_carries_the_sidecar_label_and_the_file() -> None:
    config_maps = of_kind(render("metrics.dashboard.enabled=true"), "ConfigMap")

    dashboard = config_maps[f"{NAMESPACE}/{DASHBOARD}"]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert "annotations" not in dashboard["metadata"]
    shipped = json.loads((CHART / "dashboards" / "stencil.json").read_text())
    assert json.loads(dashboard["data"]["stencil.json"]) == shipped


def test_label_namespace_and_folder_follow_the_values() -> None:
    config_maps = of_kind(
        render(
            "metrics.dashboard.enabled=true",
            "metrics.dashboard.label=dashboards",
            "metrics.dashboard.labelValue=stencil",
            "metrics.dashboard.namespace=monitoring",
            "metrics.dashboard.folder=Operators",
        ),
        "ConfigMap",
    )

    meta = config_maps[f"monitoring/{DASHBOARD}"]["metadata"]
    assert meta["labels"]["dashboards"] == "stencil" and "grafana_dashboard" not in meta["labels"]
    assert meta["annotations"] == {"grafana_folder": "Operators"}


def test_an_unknown_dashboard_value_is_refused() -> None:
    result = template("metrics.dashboard.enabled=true", "metrics.dashboard.sidecar=yes")

    assert result.returncode != 0 and "sidecar" in result.stderr
