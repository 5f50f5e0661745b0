"""A ConfigMap template that copies its Service's ``spec.clusterIP`` through ``children.<id>``
converges on a real control plane: the read is an edge, so the ConfigMap is created only once
the Service exists, and its very first version already holds the address the server assigned.

The ConfigMap template comes first in the folder: the order follows the read, not the files."""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import eventually, running_engine
from tests.integration._recording import recording
from tests.integration._widgets import widget, write_kind
from tests.unit._kinds import configmap

CONFIGMAP = configmap(
    "  clusterIP: \"{{ children.service.spec.clusterIP if children.service is not none else '' }}\"\n",
    name="{{ name }}-address",
)
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ name }}-svc
spec:
  ports:
    - port: 80
"""


def test_the_configmap_is_created_after_the_service_with_its_assigned_ip(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    configmaps, services = kube.resource("v1", "ConfigMap"), kube.resource("v1", "Service")
    kind_yaml = "templates:\n  - address.yaml\n  - {file: service.yaml, id: service}\n"
    templates = write_kind(
        tmp_path / "templates", {"address.yaml": CONFIGMAP, "service.yaml": SERVICE}, kind_yaml
    )

    with recording(kube, configmaps, namespace) as record, running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("w")], namespace)

        service = eventually(lambda: kube.get(services, "w-svc", namespace), what="the Service")
        assigned = service["spec"]["clusterIP"]
        assert assigned and assigned != "None"
        eventually(
            lambda: (
                (kube.get(configmaps, "w-address", namespace) or {}).get("data") == {"clusterIP": assigned}
            ),
            what="the ConfigMap holding the Service's clusterIP",
        )
        [(_, first), *_] = record.of("w-address")
        assert first["data"] == {"clusterIP": assigned}
