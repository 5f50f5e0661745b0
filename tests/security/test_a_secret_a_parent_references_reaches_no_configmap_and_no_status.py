"""A tenant's parent references a Secret of its namespace and tries to copy it into a ConfigMap
and into its status, which a ``view`` user reads: the engine makes no such ConfigMap, the parent
is not Ready, saying which template line and field, and neither its status nor its events quote
the value."""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._referencing import grant_reader, password_secret
from tests.integration._widgets import configmap, widget, write_kind

PASSWORD = "tenant-a-db-password-0451"
KIND_YAML = """\
references:
  - {id: db, apiVersion: v1, kind: Secret, name: "'db'"}
status:
  fields:
    password: references.db.data.password
"""
COPY = configmap('  password: "{{ references.db.data.password | b64decode }}"\n', name="{{ name }}-copy")


def test_a_referenced_secret_is_copied_neither_into_a_configmap_nor_the_status(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    encoded = password_secret(kube, namespace, PASSWORD)
    templates = write_kind(tmp_path / "templates", {"leak.yaml": COPY}, KIND_YAML)
    grant_reader(kube, namespace, "secrets")  # the account its parents read as
    with running_engine(kube, templates, None):
        manifests.apply_all(kube, [widget("a")], namespace)
        parent = eventually(
            condition_is(kube, widgets, "a", namespace, "TemplatesRendered", "False"), what="a refused"
        )
        told = str(parent["status"])
        assert "leak.yaml" in told and "data.password" in told, told
        assert PASSWORD not in told and encoded not in told, told
        assert "password" not in parent["status"], parent["status"]
        assert kube.get(kube.resource("v1", "ConfigMap"), "a-copy", namespace) is None
        events = kube.list(kube.resource("v1", "Event"), namespace)
        assert PASSWORD not in str(events) and encoded not in str(events)
