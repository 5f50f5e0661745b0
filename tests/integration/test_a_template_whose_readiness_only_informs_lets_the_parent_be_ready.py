"""On the real plane: a template marked ``gatesReady: false`` whose child is never ready (its
``readyWhen`` does not hold) leaves the parent Ready, says so in ``CacheReady``, and a template
reading ``children.cache`` is applied at once with what it reads; the same kind without the mark
holds the parent back and the reader waits."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._widgets import configmap, widget, write_kind

FILES = {
    "cache.yaml": configmap("  warm: 'no'\n", name="{{ name }}-cache"),
    "reader.yaml": configmap(
        "  cache: '{{ children.cache.data.warm if children.cache else \"none\" }}'\n",
        name="{{ name }}-reader",
    ),
}


@pytest.mark.parametrize("gates", [False, True])
def test_an_informing_template_holds_nothing_back(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path, gates: bool
) -> None:
    rule = "readyWhen: \"child.data.warm == 'yes'\""
    entry = f"{{file: cache.yaml, {rule}, gatesReady: {str(gates).lower()}}}"
    kind_yaml = f"templates:\n  - {entry}\n  - reader.yaml\n"
    configmaps = kube.resource("v1", "ConfigMap")
    with running_engine(kube, write_kind(tmp_path / "templates", FILES, kind_yaml), namespace):
        manifests.apply_all(kube, [widget("a")], namespace)
        if not gates:
            parent = eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
            informs = conditions(parent)["CacheReady"]
            assert informs["status"] == "False" and "readyWhen" in informs["message"], informs
            read = lambda: (kube.get(configmaps, "a-reader", namespace) or {}).get("data")  # noqa: E731
            eventually(lambda: read() == {"cache": "no"}, what="the reader to read the cache as it is")
        else:
            parent = eventually(condition_is(kube, widgets, "a", namespace, "ChildrenApplied", "False"))
            assert conditions(parent)["Ready"]["status"] == "False" and "CacheReady" not in conditions(parent)
            assert kube.get(configmaps, "a-reader", namespace) is None, "the reader did not wait"
