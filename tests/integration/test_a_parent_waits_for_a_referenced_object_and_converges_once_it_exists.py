"""A parent whose kind references a ConfigMap that does not exist yet renders nothing and says
so (ChildrenApplied and Ready False, ReferenceNotFound, naming the ConfigMap); once the ConfigMap
is created, its watch event wakes the parent, which converges within seconds, not at a resync."""

from __future__ import annotations

import time
from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._referencing import KIND_YAML, TEMPLATE, grant_reader, shared_config
from tests.integration._widgets import widget, write_kind

CONVERGES_WITHIN = 5.0  # seconds from the ConfigMap's creation to the parent's Ready


def test_a_parent_waits_for_a_referenced_configmap_then_converges(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"echo.yaml": TEMPLATE}, KIND_YAML)
    configmaps = kube.resource("v1", "ConfigMap")

    grant_reader(kube, namespace, "configmaps")  # the account its parents read as
    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("w", configName="shared")], namespace)
        waiting = eventually(condition_is(kube, widgets, "w", namespace, "ChildrenApplied", "False"))
        found = conditions(waiting)
        said = f"reference config: ConfigMap v1 {namespace}/shared not found"
        assert (found["ChildrenApplied"]["reason"], found["ChildrenApplied"]["message"]) == (
            "ReferenceNotFound",
            said,
        )
        assert (found["Ready"]["status"], found["Ready"]["reason"]) == ("False", "ReferenceNotFound")
        time.sleep(1.0)  # nothing is rendered meanwhile, however long it waits
        assert kube.get(configmaps, "w-echo", namespace) is None

        created = time.monotonic()
        manifests.apply_all(kube, [shared_config("shared", "hello")], namespace)
        ready = eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"))
        took = time.monotonic() - created
        echo = kube.get(configmaps, "w-echo", namespace)
        assert echo is not None and echo["data"] == {"ECHO_VALUE": "hello"}
        assert ready["status"]["echo"] == "hello"
        assert took < CONVERGES_WITHIN, f"converged {took:.1f} s after the ConfigMap was created"
        print(f"converged {took:.2f} s after the referenced ConfigMap was created")
