"""Bad templates and hostile values mark only their own kind's objects; other kinds keep working.

One Widget kind whose files are rewritten during the test (the engine reloads
them without a restart) and the real DeployWebService kind beside it.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine
from tests.integration._widgets import configmap, widget, write_kind

HOSTILE = 'x"\nkind: Secret\nmetadata:\n  name: stolen\n  namespace: kube-system\n---\n&a [*a]: !!binary'

GOOD = configmap('  value: {{ spec.value }}\n  quoted: "prefix {{ spec.value }}"\n', name="{{ name }}-config")


def write_widget_kind(templates: Path, template: str, kind_yaml_extra: str = "") -> None:
    write_kind(templates, {"configmap.yaml": template}, kind_yaml_extra)


def events_for(kube: Kube, namespace: str, name: str) -> list[dict[str, Any]]:
    listing = kube.request("GET", f"/api/v1/namespaces/{namespace}/events")
    return [e for e in listing["items"] if e["involvedObject"].get("name") == name]


def rendered_false_with(kube: Kube, widgets: Resource, namespace: str, reason: str, text: str) -> Any:
    def probe() -> Any:
        cond = conditions(kube.get(widgets, "w", namespace)).get("TemplatesRendered")
        return (
            cond
            if cond and cond["status"] == "False" and cond["reason"] == reason and text in cond["message"]
            else None
        )

    return probe


def test_bad_input_marks_only_its_kind(
    kube: Kube, namespace: str, dws: Resource, widgets: Resource, tmp_path: Path
) -> None:
    templates = tmp_path / "templates"
    shutil.copytree(ROOT / "templates" / "deploywebservice", templates / "deploywebservice")
    write_widget_kind(templates, GOOD)
    configmaps = kube.resource("v1", "ConfigMap")
    secrets = kube.resource("v1", "Secret")

    with running_engine(kube, templates, namespace):
        # A hostile value is data, never structure: the child stays a ConfigMap in our namespace.
        manifests.apply_all(kube, [widget("w", value=HOSTILE)], namespace)
        eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"), what="Widget Ready")
        config = kube.get(configmaps, "w-config", namespace)
        assert config is not None
        assert config["data"] == {"value": HOSTILE, "quoted": f"prefix {HOSTILE}"}
        assert kube.get(secrets, "stolen", "kube-system") is None

        # A syntax error: the Widget says where; the other kind keeps reconciling.
        write_widget_kind(templates, GOOD.replace("{{ spec.value }}\n", "{{ spec.value \n", 1))
        cond = eventually(
            rendered_false_with(kube, widgets, namespace, "RenderFailed", "configmap.yaml:"),
            what="TemplatesRendered=False after a syntax error",
        )
        assert conditions(kube.get(widgets, "w", namespace))["Ready"]["status"] == "False"
        assert any(
            e["reason"] == "RenderFailed" and "configmap.yaml" in e["message"]
            for e in eventually(lambda: events_for(kube, namespace, "w"), what="events")
        )
        manifests.apply_all(
            kube,
            [
                {
                    "apiVersion": "operator.wujiuye.com/v1beta1",
                    "kind": "DeployWebService",
                    "metadata": {"name": "healthy"},
                    "spec": {"image": "nginx:1.27", "replicas": 1, "exposed_port": 80},
                }
            ],
            namespace,
        )
        eventually(
            condition_is(kube, dws, "healthy", namespace, "Ready", "True"),
            what="the healthy kind to reach Ready while the other is broken",
        )
        del cond

        # An undefined variable names the CR field.
        write_widget_kind(templates, GOOD.replace("spec.value }}\n", "spec.missing }}\n", 1))
        eventually(
            rendered_false_with(kube, widgets, namespace, "RenderFailed", "spec.missing"),
            what="TemplatesRendered=False naming spec.missing",
        )

        # A namespace escape is refused by the engine, whatever the template says.
        write_widget_kind(templates, GOOD.replace("metadata:\n", "metadata:\n  namespace: kube-system\n"))
        eventually(
            rendered_false_with(kube, widgets, namespace, "PlacementRefused", "kube-system"),
            what="PlacementRefused",
        )
        assert kube.get(configmaps, "w-config", "kube-system") is None

        # A broken kind.yaml marks the kind's objects too.
        write_widget_kind(templates, GOOD, "placement:\n  rbac: maybe\n")
        eventually(
            rendered_false_with(kube, widgets, namespace, "InvalidKind", "kind.yaml:"), what="InvalidKind"
        )

        # Fixed again: the Widget recovers without a restart.
        write_widget_kind(templates, GOOD)
        eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"), what="recovery")
        assert conditions(kube.get(dws, "healthy", namespace))["Ready"]["status"] == "True"
