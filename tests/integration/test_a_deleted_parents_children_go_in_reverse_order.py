"""A kind with an ordered teardown: when a parent is deleted, the child made last (``after:``) is
deleted first, and the one it waited for only once it is gone, the parent held meanwhile by
its finalizer; held children (a finalizer of someone else's) hold the teardown, until the kind's
timeout lets the parent go with a ``TeardownTimedOut`` event, not a hang."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, event_said, eventually, running_engine
from tests.integration._widgets import configmap, widget, write_kind

HOLD = "tests.stencil.dev/hold"
FILES = {
    "db.yaml": configmap("  role: db\n", name="{{ name }}-db"),
    "app.yaml": configmap("  role: app\n", name="{{ name }}-app"),
}


def _kind_yaml(timeout: str) -> str:
    teardown = f"teardown: {{ordered: true, timeout: {timeout}}}\n"
    return teardown + "templates: [db.yaml, {file: app.yaml, after: [db]}]\n"


def _hold(kube: Kube, name: str, namespace: str, on: bool) -> None:
    configmaps = kube.resource("v1", "ConfigMap")
    ops = [{"op": "add", "path": "/metadata/finalizers", "value": [HOLD] if on else []}]
    kube.patch_json(configmaps, name, namespace, ops)


def _going(kube: Kube, name: str, namespace: str) -> dict[str, Any] | None:
    found = kube.get(kube.resource("v1", "ConfigMap"), name, namespace)
    return found if found is not None and found["metadata"].get("deletionTimestamp") else None


def _gone(kube: Kube, res: Resource, name: str, namespace: str) -> bool:
    return kube.get(res, name, namespace) is None


def test_the_last_made_goes_first_and_the_timeout_ends_the_wait(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    configmaps = kube.resource("v1", "ConfigMap")
    with running_engine(kube, write_kind(tmp_path / "ordered", FILES, _kind_yaml("1h")), namespace):
        manifests.apply_all(kube, [widget("a")], namespace)
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
        for child in ("a-db", "a-app"):
            _hold(kube, child, namespace, on=True)
        kube.delete(widgets, "a", namespace)
        eventually(lambda: _going(kube, "a-app", namespace), what="a-app deleted first")
        time.sleep(2)  # the teardown looks again every second: a-db would be going by now
        assert _going(kube, "a-db", namespace) is None, "a-db went before a-app was gone"
        _hold(kube, "a-app", namespace, on=False)
        eventually(lambda: _going(kube, "a-db", namespace), what="a-db deleted once a-app is gone")
        assert kube.get(widgets, "a", namespace) is not None, "the parent went before its children"
        _hold(kube, "a-db", namespace, on=False)
        eventually(lambda: _gone(kube, widgets, "a", namespace), what="the parent gone")
        eventually(event_said(kube, namespace, "TearingDown", "ConfigMap a-app"), what="TearingDown")

    with running_engine(kube, write_kind(tmp_path / "timed", FILES, _kind_yaml("3s")), namespace):
        manifests.apply_all(kube, [widget("b")], namespace)
        eventually(condition_is(kube, widgets, "b", namespace, "Ready", "True"), what="b Ready")
        _hold(kube, "b-app", namespace, on=True)
        kube.delete(widgets, "b", namespace)
        eventually(lambda: _gone(kube, widgets, "b", namespace), what="b gone at its timeout")
        eventually(event_said(kube, namespace, "TeardownTimedOut", about="b"), what="TeardownTimedOut")
        assert _going(kube, "b-app", namespace) is not None  # its own finalizer holds it, not the parent
        _hold(kube, "b-app", namespace, on=False)
        eventually(lambda: _gone(kube, configmaps, "b-app", namespace), what="b-app gone")
