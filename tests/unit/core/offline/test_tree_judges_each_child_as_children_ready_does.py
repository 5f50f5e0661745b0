"""``stencil tree`` judges each child as the parent's ChildrenReady does (readyWhen, else kstatus),
says ``Missing`` for one not created yet, marks one no longer rendered, shows a reference that is not
there, and puts the parent's Ready condition on the first line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.decisions.referencing import Target
from engine.core.model import kinds
from engine.core.model.identity import ChildId
from engine.core.model.kinds import Kind
from engine.core.offline import family
from tests.unit import _lintkinds

NS = "shop"
NOW = "2024-05-01T12:00:00Z"


def obj(api_version: str, kind: str, name: str, **rest: Any) -> dict[str, Any]:
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": name, "namespace": NS}, **rest}


PARENT = obj(
    "example.com/v1",
    "Web",
    "web",
    status={
        "conditions": [{"type": "Ready", "status": "False", "reason": "ChildrenNotReady", "message": "why"}]
    },
)
DEPLOYMENT = obj(
    "apps/v1",
    "Deployment",
    "web",
    metadata={"name": "web", "namespace": NS, "generation": 1},
    spec={"replicas": 2},
    status={"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "availableReplicas": 0},
)
SERVICE = obj("v1", "Service", "web", spec={"type": "ClusterIP", "clusterIP": "10.0.0.1"})
JOB = obj("batch/v1", "Job", "migrate", status={"succeeded": 0, "active": 1})
OLD = obj("v1", "ConfigMap", "old")


def kind(tmp_path: Path) -> Kind:
    """Four templates; the Job's children are ready when its readyWhen holds, not by kstatus."""
    plain = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: web\n"
    folder = _lintkinds.kind_folder(
        tmp_path,
        {f"{name}.yaml": plain for name in ("deployment", "service", "job", "secret")},
        kind_yaml_extra="templates:\n  - deployment.yaml\n  - service.yaml\n"
        "  - {file: job.yaml, readyWhen: ['child.status.succeeded >= 1']}\n  - secret.yaml\n",
    )
    return kinds.load_kind(folder)


def test_each_line_says_what_children_ready_says(tmp_path: Path) -> None:
    rendered = [
        ("deployment", ChildId.of(DEPLOYMENT)),
        ("service", ChildId.of(SERVICE)),
        ("job", ChildId.of(JOB)),
        ("secret", ChildId("", "v1", "Secret", NS, "web")),
    ]
    config = Target("config", ChildId("", "v1", "ConfigMap", NS, "shared"))
    found = family.members(
        family.Family(
            kind(tmp_path), PARENT, rendered, [DEPLOYMENT, SERVICE, JOB, OLD], [(config, [])], now=NOW
        )
    )

    assert [(m.depth, m.what, m.note, m.health) for m in found] == [
        (0, "Web/web", "", "Ready=False"),
        (1, "Deployment/web", "deployment", "InProgress"),
        (1, "Service/web", "service", "Current"),
        (1, "Job/migrate", "job", "NotReady"),
        (1, "Secret/web", "secret", "Missing"),
        (1, "ConfigMap/old", "", "Current"),
        (1, "ConfigMap/shared", "references.config", "Missing"),
    ]
    reasons = [m.reason for m in found]
    assert reasons[0] == "ChildrenNotReady: why"
    assert reasons[1] == "0/2 replicas available"
    assert reasons[3].startswith("readyWhen 'child.status.succeeded >= 1' does not hold")
    assert reasons[4] == "not created yet"
    assert reasons[5] == family.NOT_RENDERED
    assert reasons[6] == "not found: the parent waits for it"


def test_a_patched_object_says_whether_the_parents_manager_holds_what_its_patch_names(tmp_path: Path) -> None:
    patch = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a", "labels": {"team": "x"}}}
    manager = "stencil-patch/web/shop/web"
    held = {
        "manager": manager,
        "operation": "Apply",
        "fieldsV1": {"f:metadata": {"f:labels": {"f:team": {}}}},
    }
    live = {**patch, "metadata": {**patch["metadata"], "managedFields": [held]}}
    taken = {
        **patch,
        "metadata": {**patch["metadata"], "managedFields": [{**held, "manager": "kubectl-label"}]},
    }
    patches = [("label", patch, live), ("label", patch, taken), ("label", patch, None)]

    found = family.members(family.Family(kind(tmp_path), PARENT, [], [], now=NOW, patches=patches))

    assert [(m.what, m.note, m.health) for m in found[1:]] == [
        ("Namespace/team-a", "label, patch", "Patched"),
        ("Namespace/team-a", "label, patch", "NotPatched"),
        ("Namespace/team-a", "label, patch", "Missing"),
    ]
