"""A tenant's CR nested 1,100 levels deep (the API server takes it; orjson decodes 1,024)
affects only itself.  With it present when the engine starts, the engine becomes ready, a plain
Widget beside it converges, and the deep one is told why it is not rendered, in a condition
naming its depth and the bound.  Once it is deleted the kind goes on working."""

from __future__ import annotations

import json
from pathlib import Path

from engine.runtime.cluster import nesting
from engine.runtime.cluster.kube import Kube, Resource
from tests.integration._engine import conditions, eventually, running_engine
from tests.integration._widgets import VALUE_CONFIGMAP, widget, write_kind

DEPTH = 1_100


def deep_widget(name: str) -> bytes:
    """A Widget whose spec.deep is DEPTH lists, one inside the other (JSON built as text: no
    encoder recurses that deep)."""
    shallow = json.dumps(widget(name, value="deep", deep="@"), separators=(",", ":"))
    return shallow.replace('"@"', "[" * DEPTH + "]" * DEPTH).encode()


def test_a_parent_nested_too_deeply_affects_only_itself(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"data.yaml": VALUE_CONFIGMAP})
    configmaps = kube.resource("v1", "ConfigMap")
    kube.request("POST", widgets.path(namespace), deep_widget("deep"))
    kube.create({**widget("plain", value="one"), "metadata": {"name": "plain", "namespace": namespace}})

    def value_of(name: str, expected: str) -> bool:
        child = kube.get(configmaps, f"{name}-data", namespace)
        return child is not None and child["data"]["value"] == expected

    with running_engine(kube, templates, namespace) as engine:
        eventually(engine.synced, what="the engine ready with the deep parent present")
        eventually(lambda: value_of("plain", "one"), what="the plain parent converged")

        def refused() -> dict[str, str] | None:
            ready = conditions(kube.get(widgets, "deep", namespace)).get("Ready")
            return ready if ready and ready["status"] == "False" else None

        ready = eventually(refused, what="the deep parent's condition")
        # The object, its spec, then DEPTH lists.
        assert f"nested too deeply ({DEPTH + 2} levels; at most {nesting.LIMIT})" in ready["message"], ready
        assert kube.get(configmaps, "deep-data", namespace) is None

        kube.delete(widgets, "deep", namespace)
        kube.create({**widget("after", value="two"), "metadata": {"name": "after", "namespace": namespace}})
        eventually(lambda: value_of("after", "two"), what="a parent created after the deep one's deletion")
