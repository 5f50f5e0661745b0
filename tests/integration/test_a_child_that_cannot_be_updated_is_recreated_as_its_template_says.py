"""A child the API server will not update in place (an immutable ConfigMap whose data changes) is,
as its template says: refused and said (the default, ``InPlace``); deleted and created again
(``Recreate``); or, for a collection, recreated the last item first, never more than
``maxUnavailable`` of the collection gone at once (``RollingRecreate``), as a watch of the
children sees their deletions and creations alternate."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from engine.core.model.children import placement
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind

ONE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ name }}-frozen"
immutable: true
data:
  value: "{{ spec.value }}"
"""
MANY = """\
{% for index in range(3) %}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ name }}-frozen-{{ index }}"
immutable: true
data:
  value: "{{ spec.value }}"
{% endfor %}
"""


def _value(kube: Kube, name: str, namespace: str) -> str | None:
    found = kube.get(kube.resource("v1", "ConfigMap"), name, namespace)
    return None if found is None else found["data"]["value"]


def test_in_place_is_refused_and_recreate_makes_it_again(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    kind_yaml = "templates:\n  - {file: frozen.yaml, updateStrategy: Recreate}\n"
    templates = write_kind(tmp_path / "templates", {"frozen.yaml": ONE}, kind_yaml)
    in_place = write_kind(tmp_path / "in-place", {"frozen.yaml": ONE})
    with running_engine(kube, in_place, namespace):
        manifests.apply_all(kube, [widget("a", value="one")], namespace)
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
        manifests.apply_all(kube, [widget("a", value="two")], namespace)
        refused = eventually(condition_is(kube, widgets, "a", namespace, "ChildrenApplied", "False"))
        assert "immutable" in conditions(refused)["ChildrenApplied"]["message"], refused["status"]
        assert _value(kube, "a-frozen", namespace) == "one"
    uid = kube.get(kube.resource("v1", "ConfigMap"), "a-frozen", namespace)["metadata"]["uid"]
    with running_engine(kube, templates, namespace):
        eventually(lambda: _value(kube, "a-frozen", namespace) == "two", what="a-frozen made again")
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
        assert kube.get(kube.resource("v1", "ConfigMap"), "a-frozen", namespace)["metadata"]["uid"] != uid


@pytest.mark.parametrize("most", [1, 2])
def test_a_rolling_recreate_takes_the_last_first_and_keeps_the_rest_up(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path, most: int
) -> None:
    entry = (
        f"{{file: frozen.yaml, collection: true, updateStrategy: RollingRecreate, maxUnavailable: {most}}}"
    )
    templates = write_kind(tmp_path / "templates", {"frozen.yaml": MANY}, f"templates:\n  - {entry}\n")
    configmaps = kube.resource("v1", "ConfigMap")
    seen: list[tuple[str, str]] = []
    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("a", value="one")], namespace)
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="a Ready")
        _, version = kube.list(configmaps, namespace)
        stop: list[object] = []
        watching = threading.Thread(
            target=_record, args=(kube, configmaps, namespace, version, seen, stop), daemon=True
        )
        watching.start()
        manifests.apply_all(kube, [widget("a", value="two")], namespace)
        names = [f"a-frozen-{index}" for index in range(3)]
        eventually(lambda: all(_value(kube, n, namespace) == "two" for n in names), what="all made")
        eventually(
            lambda: seen.count(("ADDED", "a-frozen-0")) == 1, what="the watch to see the last creation"
        )
        for close in stop:
            close()  # type: ignore[operator]
    deleted = [name for kind, name in seen if kind == "DELETED"]
    assert sorted(deleted) == sorted(names), seen
    if most == 1:
        assert deleted == list(reversed(names)), seen  # the last item first
    down = peak = 0
    for kind, _ in seen:
        down += 1 if kind == "DELETED" else -1 if kind == "ADDED" else 0
        peak = max(peak, down)
    assert 1 <= peak <= most, seen


def _record(
    kube: Kube,
    configmaps: Resource,
    namespace: str,
    version: str,
    seen: list[tuple[str, str]],
    stop: list[object],
) -> None:
    selector = placement.PARENT_NAME_LABEL + "=a"
    for kind, obj in kube.watch(configmaps, version, namespace, selector, on_open=stop.append):
        if kind in ("ADDED", "DELETED"):
            seen.append((kind, obj["metadata"]["name"]))
