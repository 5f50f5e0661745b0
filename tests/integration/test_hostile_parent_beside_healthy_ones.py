"""A hostile parent sits beside healthy ones: they converge, it is told its problem.

The hostile Widget has a name longer than a label value allows and an injection
attempt in every string of its spec, one of which asks for a child in another
namespace.  A Widget with an equally long but harmless spec converges (its
children carry the name in bounded form), as do an ordinary Widget and a Network,
a kind of its own; the hostile one gets a condition and an Event naming the field.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from engine.core.model.children import placement
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind

INJECTION = 'x"\nkind: Secret\nmetadata:\n  name: stolen\n  namespace: kube-system\n---\n&a [*a]: !!binary'
LONG = "a-parent-whose-name-is-longer-than-any-label-value-may-be-" + "x" * 10

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-config
  namespace: {{ spec.namespace | default(namespace) }}
  labels:
    tier: {{ spec.tier }}
data:
  value: {{ spec.value }}
  quoted: "prefix {{ spec.value }} {{ name }}"
"""


def events_for(kube: Kube, namespace: str, name: str) -> list[dict[str, Any]]:
    listing = kube.request("GET", f"/api/v1/namespaces/{namespace}/events")
    return [e for e in listing["items"] if e["involvedObject"].get("name") == name]


def test_healthy_parents_converge_beside_a_hostile_one(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"configmap.yaml": TEMPLATE})
    shutil.copytree(ROOT / "templates" / "network", templates / "network")
    networks = kube.resource("samplecrd.k8s.io/v1", "Network")
    configmaps = kube.resource("v1", "ConfigMap")
    hostile = "h" + LONG[1:]
    assert len(hostile) == len(LONG) > 63

    with running_engine(kube, templates, namespace):
        manifests.apply_all(
            kube,
            [
                widget(hostile, value=INJECTION, tier="web", namespace=f"../{INJECTION}"),
                widget(LONG, value=INJECTION, tier="web"),
                widget("plain", value="v", tier="db"),
                {
                    "apiVersion": "samplecrd.k8s.io/v1",
                    "kind": "Network",
                    "metadata": {"name": "net"},
                    "spec": {"cidr": "10.0.0.0/24", "gateway": "10.0.0.1"},
                },
            ],
            namespace,
        )
        for name in (LONG, "plain"):
            eventually(condition_is(kube, widgets, name, namespace, "Ready", "True"), what=f"{name} Ready")
        eventually(condition_is(kube, networks, "net", namespace, "Ready", "True"), what="Network Ready")

        long_child = kube.get(configmaps, f"{LONG}-config", namespace)
        assert long_child is not None
        assert long_child["data"] == {"value": INJECTION, "quoted": f"prefix {INJECTION} {LONG}"}
        assert long_child["metadata"]["labels"][placement.PARENT_NAME_LABEL] == placement.label_value(LONG)
        assert long_child["metadata"]["annotations"][placement.PARENT_NAME_LABEL] == LONG

        def hostile_refused() -> dict[str, Any] | None:
            ready = conditions(kube.get(widgets, hostile, namespace)).get("Ready")
            return (
                ready
                if ready and ready["status"] == "False" and "metadata.namespace" in ready["message"]
                else None
            )

        ready = eventually(hostile_refused, what="the hostile Widget told its problem")
        assert "configmap.yaml" in ready["message"]
        assert any(
            "metadata.namespace" in e["message"]
            for e in eventually(lambda: events_for(kube, namespace, hostile) or None, what="an Event")
        )
        assert kube.get(configmaps, f"{hostile}-config", namespace) is None
        assert kube.get(kube.resource("v1", "Secret"), "stolen", "kube-system") is None
