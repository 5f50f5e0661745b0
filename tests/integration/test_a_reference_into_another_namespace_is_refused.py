"""A tenant cannot read another namespace's object through a reference: a Widget whose spec points
its reference at another namespace, which the kind's placement does not allow, is refused
(TemplatesRendered False, ReferenceRefused), renders nothing, and its status carries nothing of
the other namespace's ConfigMap."""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._referencing import KIND_YAML, TEMPLATE, shared_config
from tests.integration._widgets import widget, write_kind


def test_a_reference_naming_another_namespace_is_refused(
    kube: Kube, namespace: str, other_namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"echo.yaml": TEMPLATE}, KIND_YAML)
    configmaps = kube.resource("v1", "ConfigMap")
    manifests.apply_all(kube, [shared_config("secret-of-b", "theirs")], other_namespace)

    # The engine watches every namespace, so only the reference's own check stands in the way.
    with running_engine(kube, templates, None):
        manifests.apply_all(
            kube, [widget("w", configName="secret-of-b", configNamespace=other_namespace)], namespace
        )
        refused = eventually(condition_is(kube, widgets, "w", namespace, "TemplatesRendered", "False"))
        found = conditions(refused)["TemplatesRendered"]
        assert found["reason"] == "ReferenceRefused"
        assert f"the namespace '{other_namespace}' is not the parent's" in found["message"]
        assert "theirs" not in str(refused.get("status"))
        assert kube.get(configmaps, "w-echo", namespace) is None
