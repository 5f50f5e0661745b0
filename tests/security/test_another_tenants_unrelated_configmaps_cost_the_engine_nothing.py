"""A kind that references a ConfigMap by name makes the engine watch ConfigMaps, but tenant B's
hundred unrelated ConfigMaps of a megabyte each (one of them named as A's) cost the engine
their metadata alone, a few hundred bytes each, not a hundred megabytes: what the references
hold is measured as the bytes of JSON they keep.  Tenant A's parent still waits for its
ConfigMap while it is missing, converges once it is created, and follows each change of it."""

from __future__ import annotations

import json
from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._referencing import KIND_YAML, TEMPLATE, grant_reader, shared_config
from tests.integration._widgets import widget, write_kind

UNRELATED = 100
SIZE = 1_000_000  # bytes of data per unrelated ConfigMap, under etcd's 1.5 MiB request limit
EACH_AT_MOST = 2_048  # bytes the engine may keep of an object no parent reads


def test_unrelated_configmaps_of_another_tenant_cost_the_engine_their_metadata_alone(
    kube: Kube, namespace: str, tenant_b: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"echo.yaml": TEMPLATE}, KIND_YAML)
    configmaps = kube.resource("v1", "ConfigMap")

    def echoed(value: str) -> bool:
        echo = kube.get(configmaps, "a-echo", namespace) or {}
        return echo.get("data") == {"ECHO_VALUE": value}

    grant_reader(kube, namespace, "configmaps")  # the account its parents read as
    with running_engine(kube, templates, None) as engine:  # every namespace watched, B's too
        referenced = engine.children.referenced
        manifests.apply_all(kube, [widget("a", configName="shared")], namespace)
        eventually(condition_is(kube, widgets, "a", namespace, "ChildrenApplied", "False"), what="A waiting")
        manifests.apply_all(kube, [shared_config("shared", "one")], namespace)
        eventually(lambda: echoed("one"), what="A's echo once its ConfigMap is created")
        before = referenced.cached_bytes()

        blob = "x" * SIZE
        for index in range(UNRELATED):
            name = "shared" if index == 0 else f"unrelated-{index}"
            body = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": name},
                "data": {"ECHO": blob},
            }
            kube.request("POST", configmaps.path(tenant_b), json.dumps(body).encode())

        # One watch of every namespace delivers in order: once this change reaches A's echo, the
        # engine has been told of every one of B's ConfigMaps.
        manifests.apply_all(kube, [shared_config("shared", "two")], namespace)
        eventually(lambda: echoed("two"), what="A's echo to follow its ConfigMap's change")
        after = referenced.cached_bytes()
        each = (after - before) / UNRELATED
        print(f"references hold {before} bytes, then {after} with {UNRELATED} unrelated: {each:.0f} each")
        assert each <= EACH_AT_MOST, f"an unrelated ConfigMap costs the engine {each:.0f} bytes"
        status = (kube.get(widgets, "a", namespace) or {}).get("status") or {}
        assert status.get("echo") == "two", status
