"""A name pointing at no child of the kind is not reported when the target is one of the kind's external
references: the object is known to be made outside the kind."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.core.model.identity import ChildId
from engine.core.offline.linting import check_relations
from engine.core.templating import rendering
from tests.unit._lintkinds import kind_folder
from tests.unit._siblings import deployment

HPA = (
    "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\nspec:\n"
    "  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: shared-api}\n  maxReplicas: 3\n"
)
VOLUMES = "      volumes:\n        - {name: certs, secret: {secretName: shared-tls}}\n"
PARENT = {
    "apiVersion": "example.com/v1",
    "kind": "Web",
    "metadata": {"name": "small", "namespace": "default", "uid": "1"},
    "spec": {"image": "nginx"},
}


def test_a_volume_naming_an_external_reference_is_not_reported(tmp_path: Path) -> None:
    kind = kinds.load_kind(kind_folder(tmp_path, {"deployment.yaml": deployment(pod=VOLUMES)}))
    located = rendering.render_located(kind, PARENT, [])
    shared = ChildId("", "v1", "Secret", "default", "shared-tls")

    assert [f.severity for f in check_relations(located)] == ["warning"]
    assert check_relations(located, external=[shared]) == []


def test_a_scale_target_naming_an_external_reference_is_not_reported(tmp_path: Path) -> None:
    kind = kinds.load_kind(kind_folder(tmp_path, {"deployment.yaml": deployment(), "hpa.yaml": HPA}))
    located = rendering.render_located(kind, PARENT, [])
    shared = ChildId("apps", "v1", "Deployment", "default", "shared-api")

    assert [f.severity for f in check_relations(located)] == ["error"]
    assert check_relations(located, external=[shared]) == []
