"""A kind author who may write kind ConfigMaps cannot take over, or break, a parent kind a folder
already serves: a ConfigMap kind claiming Widget (with a child of the same name and one more) and a
broken one claiming it too are both refused, each with a log line and an event naming both sources.
The folder's kind goes on untouched: its child is never deleted or rewritten, no other child appears,
the parent stays Ready and follows its spec.  Before, both kinds were served by turns, and the
parent's children were pruned and re-created by each."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.serving import bundles
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._widgets import KIND_YAML, VALUE_CONFIGMAP, widget, write_kind
from tests.unit._kinds import configmap

INTRUDER_DATA = configmap('  value: "intruder"\n', name="{{ name }}-data")
MORE = configmap('  value: "more"\n', name="{{ name }}-intruder")
BROKEN_RULE = "status:\n  fields:\n    x: 'sepc.y'\n"


def bundle(name: str, files: dict[str, str]) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "labels": {bundles.BUNDLE_LABEL: "true"}},
        "data": files,
    }


def test_a_kind_configmap_claiming_a_served_parent_kind_is_refused_and_its_children_stay(
    kube: Kube,
    namespace: str,
    kinds_namespace: str,
    widgets: Resource,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    templates = write_kind(tmp_path / "templates", {"data.yaml": VALUE_CONFIGMAP})
    configmaps = kube.resource("v1", "ConfigMap")
    caplog.set_level(logging.ERROR, logger="stencil.controller")
    with running_engine(kube, templates, namespace, bundle_namespace=kinds_namespace):
        manifests.apply_all(kube, [widget("w", value="one")], namespace)
        eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"))
        child = kube.get(configmaps, "w-data", namespace)
        assert child is not None

        manifests.apply_all(
            kube,
            [
                bundle("intruder", {"kind.yaml": KIND_YAML, "a.yaml": INTRUDER_DATA, "b.yaml": MORE}),
                bundle("breaker", {"kind.yaml": KIND_YAML + BROKEN_RULE, "a.yaml": INTRUDER_DATA}),
            ],
            kinds_namespace,
        )

        def refused(name: str) -> Callable[[], str | None]:
            return lambda: said(name)

        def said(name: str) -> str | None:
            events = kube.list(kube.resource("v1", "Event"), kinds_namespace)[0]
            said = [
                e["message"]
                for e in events
                if e.get("reason") == "KindRefused" and e["involvedObject"]["name"] == name
            ]
            return said[0] if said else None

        for name in ("intruder", "breaker"):
            message = eventually(refused(name), what=f"an event saying {name} is refused")
            assert f"kind {name} from ConfigMap {kinds_namespace}/{name} is not loaded" in message
            assert f"Widget.tests.stencil.dev is served by kind widget from {templates / 'widget'}" in message
            assert message in caplog.text

        time.sleep(3)  # ten reloads of the kinds, at the test engine's 0.3 s
        manifests.apply_all(kube, [widget("w", value="two")], namespace)
        eventually(
            lambda: (kube.get(configmaps, "w-data", namespace) or {}).get("data") == {"value": "two"},
            what="the folder's kind to follow the spec",
        )
        now = kube.get(configmaps, "w-data", namespace)
        assert now is not None
        assert now["metadata"]["uid"] == child["metadata"]["uid"], "the child was deleted and made again"
        assert kube.get(configmaps, "w-intruder", namespace) is None
        parent = eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"))
        assert "x" not in (parent.get("status") or {})
