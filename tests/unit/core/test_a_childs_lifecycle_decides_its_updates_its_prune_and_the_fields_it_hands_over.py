"""A template's lifecycle reaches its children and the plan: an ``Orphan`` child carries no owner
reference; each child carries its lifecycle, never one a rendered annotation (a CR value) claims;
a ``createOnly`` child is never updated; ``applyOnce`` fields are neither drift nor put back, and
an update carries the server's value; a child no longer rendered is pruned (``Delete``), kept
(``Retain``, ``createOnly``) or let go (``Orphan``) by a patch that tests its uid and takes off
what ties it to the parent.  kind.yaml's mistakes are refused at their line."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from engine.core import door
from engine.core.decisions.plans import planning
from engine.core.model import kinds
from engine.core.model.errors import KindError
from engine.core.model.identity import ChildId
from engine.core.model.sources import lifecycle
from tests.unit import _kinds

REACH = planning.Reach("ns")
TEMPLATE = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    stencil.dev/deletion-policy: "{{ spec.claim | default('') }}"
spec:
  replicas: 2
  template: {spec: {containers: [{name: web, image: "{{ spec.image }}"}]}}
"""


def _rendered(life: lifecycle.Lifecycle, **spec: Any) -> dict[str, Any]:
    kind = _kinds.kind(TEMPLATE)
    template = dataclasses.replace(kind.templates[0], lifecycle=life)
    kind = dataclasses.replace(kind, templates=(template,))
    (child,) = door.render(kind, _kinds.parent({"image": "web:1", **spec}), []).children
    return child


def _live(child: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """``child`` as the server holds it once applied, with ``changes`` to its spec by others."""
    applied = planning.with_hash(child)
    meta = {**applied["metadata"], "uid": "child-uid", "labels": dict(applied["metadata"]["labels"])}
    return {**applied, "metadata": meta, "spec": {**applied["spec"], **changes}}


def test_an_orphan_has_no_owner_reference_and_every_child_carries_only_its_templates_lifecycle() -> None:
    orphan = _rendered(lifecycle.Lifecycle(lifecycle.ORPHAN), claim="Retain")
    assert "ownerReferences" not in orphan["metadata"]
    assert orphan["metadata"]["annotations"][lifecycle.POLICY_ANNOTATION] == "Orphan"
    plain = _rendered(lifecycle.Lifecycle(), claim="Orphan")  # a CR value claiming a lifecycle
    assert lifecycle.POLICY_ANNOTATION not in plain["metadata"].get("annotations", {})
    assert plain["metadata"]["ownerReferences"][0]["uid"] == "uid-1"


def test_a_create_only_child_is_created_and_never_updated() -> None:
    child = _rendered(lifecycle.Lifecycle(create_only=True))
    assert planning.plan([child], [], "uid-1", REACH).applies[0].create
    live = _live(_rendered(lifecycle.Lifecycle(create_only=True), image="web:0"))
    made = planning.plan([child], [live], "uid-1", REACH)
    assert not made.applies and made.unchanged == (ChildId.of(child),)


def test_apply_once_fields_are_no_drift_and_an_update_carries_the_servers_value() -> None:
    life = lifecycle.Lifecycle(apply_once=("spec.replicas",))
    child = _rendered(life)
    scaled = _live(child, replicas=7)  # an autoscaler's
    assert planning.plan([child], [scaled], "uid-1", REACH).unchanged == (ChildId.of(child),)

    changed = _rendered(life, image="web:2")
    (update,) = planning.plan([changed], [scaled], "uid-1", REACH).applies
    assert update.obj["spec"]["replicas"] == 7 and "web:2" in str(update.obj["spec"]["template"])
    assert ("spec", "replicas") not in planning.restores(scaled, update.obj)
    without = {**scaled, "spec": {k: v for k, v in scaled["spec"].items() if k != "replicas"}}
    (again,) = planning.plan([changed], [without], "uid-1", REACH).applies
    assert "replicas" not in again.obj["spec"], "a value no one holds is not made up"


@pytest.mark.parametrize(
    ("life", "fate"),
    [
        (lifecycle.Lifecycle(), "pruned"),
        (lifecycle.Lifecycle(lifecycle.RETAIN), "kept"),
        (lifecycle.Lifecycle(create_only=True), "kept"),
        (lifecycle.Lifecycle(lifecycle.ORPHAN), "released"),
    ],
)
def test_a_child_no_longer_rendered_goes_as_its_lifecycle_says(life: lifecycle.Lifecycle, fate: str) -> None:
    live = _live(_rendered(life))
    made = planning.plan([], [live], "uid-1", REACH)
    found = {"pruned": made.prunes, "kept": made.kept, "released": made.releases}
    assert [name for name, what in found.items() if what] == [fate]


def test_letting_go_tests_the_uid_and_takes_off_the_labels_annotations_and_owner_reference() -> None:
    live = _live(_rendered(lifecycle.Lifecycle(lifecycle.ORPHAN)))
    live["metadata"]["ownerReferences"] = [{"uid": "someone-else"}, {"uid": "uid-1", "controller": True}]
    live["metadata"]["labels"]["team"] = "a"
    patch = planning.release_of(live, "uid-1").patch
    assert patch[0] == {"op": "test", "path": "/metadata/uid", "value": "child-uid"}
    assert {"op": "remove", "path": "/metadata/ownerReferences/1"} in patch
    assert {"op": "remove", "path": "/metadata/ownerReferences/0"} not in patch
    removed = {op["path"] for op in patch if op["op"] == "remove"}
    assert "/metadata/labels/stencil.dev~1parent-uid" in removed
    assert "/metadata/annotations/stencil.dev~1deletion-policy" in removed
    assert "/metadata/labels/team" not in removed


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("{file: cm.yaml, applyOnce: ['spec..x']}", "is not a field path"),
        ("{file: cm.yaml, applyOnce: [metadata.name]}", "names the object"),
        ("{file: cm.yaml, applyOnce: ['spec.ports[0]']}", "a list is applied whole"),
        ("{file: cm.yaml, createOnly: true, applyOnce: [data.x]}", "applied once whole"),
        ("{file: cm.yaml, deletionPolicy: Keep}", "deletionPolicy"),
        ("{file: cm.yaml, updateStrategy: RollingRecreate}", "is for a collection"),
        ("{file: cm.yaml, maxUnavailable: 2}", "bounds a RollingRecreate"),
        ("{file: cm.yaml, createOnly: true, updateStrategy: Recreate}", "never updated"),
    ],
)
def test_a_lifecycle_mistake_is_refused_at_its_line(tmp_path: Path, entry: str, said: str) -> None:
    folder = _kinds.kind_folder(tmp_path, f"templates:\n  - {entry}\n")
    with pytest.raises(KindError) as caught:
        kinds.load_kind(folder)
    assert said in str(caught.value) and caught.value.line == 7, caught.value


def test_a_lifecycle_loads_from_kind_yaml(tmp_path: Path) -> None:
    entry = "{file: cm.yaml, deletionPolicy: Orphan, applyOnce: ['data.x', 'metadata.labels[\"a.b/c\"]']}"
    folder = _kinds.kind_folder(tmp_path, f"templates:\n  - {entry}\n")
    (template,) = kinds.load_kind(folder).templates
    assert template.lifecycle.deletion == lifecycle.ORPHAN
    assert template.lifecycle.paths == (("data", "x"), ("metadata", "labels", "a.b/c"))


@pytest.mark.parametrize(
    ("adopt", "holder", "taken"),
    [
        (True, {}, True),
        (False, {}, False),
        (True, {"ownerReferences": [{"uid": "rs-1", "controller": True, "kind": "ReplicaSet"}]}, False),
        (True, {"labels": {"stencil.dev/parent-uid": "uid-2"}}, False),
    ],
    ids=["no-ones", "not-adopting", "another-controllers", "another-parents-by-label"],
)
def test_only_an_adopting_template_takes_over_only_an_object_no_one_holds(
    adopt: bool, holder: dict[str, Any], taken: bool
) -> None:
    child = _rendered(lifecycle.Lifecycle(adopt=adopt))
    found = {"apiVersion": "apps/v1", "kind": "Deployment", "spec": {"replicas": 9}}
    found["metadata"] = {"name": "web", "namespace": "ns", "uid": "found-uid", **holder}
    made = planning.plan([child], [found], "uid-1", REACH)
    assert [a.adopt for a in made.applies] == ([True] if taken else [])
    assert bool(made.conflicts) is not taken
    if taken:
        assert made.applies[0].obj["metadata"]["ownerReferences"][0]["uid"] == "uid-1"


def _item(index: int, life: lifecycle.Lifecycle) -> dict[str, Any]:
    annotations = life.annotations()
    meta = {"name": f"item-{index}", "namespace": "ns", "annotations": annotations}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": {"v": "2"}}


def test_a_rolling_recreate_takes_the_last_items_first_within_its_budget() -> None:
    rolling = lifecycle.Lifecycle(update=lifecycle.ROLLING_RECREATE, max_unavailable=2, collection="items")
    desired = [_item(index, rolling) for index in range(4)]
    owner = [{"uid": "uid-1", "controller": True}]
    live = [
        {**item, "data": {"v": "1"}, "metadata": {**item["metadata"], "uid": "u", "ownerReferences": owner}}
        for item in desired[:3]
    ]
    made = planning.plan(desired, live, "uid-1", REACH)  # item-3 is missing: one down already
    assert {r.name for _, r in made.unavailable} == {"item-3"}
    refused = [a for a in made.applies if not a.create]
    chosen = planning.recreations(made, refused)
    assert [ChildId.of(a.obj).name for a in chosen] == ["item-2"]
    recreate = lifecycle.Lifecycle(update=lifecycle.RECREATE)
    each = [
        {**live[index], "metadata": {**live[index]["metadata"], "annotations": recreate.annotations()}}
        for index in range(2)
    ]
    plain = planning.plan([_item(index, recreate) for index in range(2)], each, "uid-1", REACH)
    assert len(planning.recreations(plain, list(plain.applies))) == 2, "Recreate waits for no turn"
