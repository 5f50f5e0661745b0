"""A referenced object is watched: a change to its data reconciles the parents that read it, and
the new value reaches their children and status within seconds."""

from __future__ import annotations

import time
from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._referencing import KIND_YAML, TEMPLATE, grant_reader, shared_config
from tests.integration._widgets import widget, write_kind


def test_a_change_to_the_referenced_configmap_reaches_the_child(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"echo.yaml": TEMPLATE}, KIND_YAML)
    configmaps = kube.resource("v1", "ConfigMap")
    manifests.apply_all(kube, [shared_config("shared", "one")], namespace)

    grant_reader(kube, namespace, "configmaps")  # the account its parents read as
    with running_engine(kube, templates, namespace):
        manifests.apply_all(
            kube, [widget("a", configName="shared"), widget("b", configName="shared")], namespace
        )
        for name in ("a", "b"):
            eventually(condition_is(kube, widgets, name, namespace, "Ready", "True"))

        changed = time.monotonic()
        manifests.apply_all(kube, [shared_config("shared", "two")], namespace)

        def echoed(name: str) -> bool:
            return (kube.get(configmaps, f"{name}-echo", namespace) or {}).get("data") == {
                "ECHO_VALUE": "two"
            }

        eventually(lambda: echoed("a") and echoed("b"), what="both echoes to carry the new value")
        took = time.monotonic() - changed
        assert took < 5.0, f"the change reached the children after {took:.1f} s"

        def status_echo() -> object:
            return ((kube.get(widgets, "a", namespace) or {}).get("status") or {}).get("echo")

        eventually(lambda: status_echo() == "two", what="the status field to read the new value")
