"""A kind's rules: the parent read-only plus its status and finalizers, each child kind its templates
render with exactly the verbs apply, cache and prune need, and events; nothing else."""

from pathlib import Path

import yaml

from engine.core.model import kinds
from engine.core.offline import rbac
from tests.unit import _crs

CRD = yaml.safe_dump(
    _crs.definition(
        "example.com",
        {"kind": "Web", "plural": "webs", "singular": "web", "listKind": "WebList"},
        {"type": "object"},
    )
)

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: "{{ name }}"
spec:
  template:
    spec:
      containers: [{name: web, image: "{{ spec.image }}"}]
"""

SERVICE_AND_CONFIG = """\
{% if spec.expose %}
apiVersion: v1
kind: Service
metadata: {name: "{{ name }}"}
{% endif %}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ name }}-config"}
"""


ROLLOUT_VERBS = ["create", "get", "list", "patch", "watch"]


def test_rules_for_a_kind_with_three_child_kinds(tmp_path: Path) -> None:
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "web.yaml").write_text(CRD)
    web = kinds.Kind(
        name="web",
        directory=tmp_path / "web",
        api_version="example.com/v1",
        kind="Web",
        templates=(
            kinds.Template(tmp_path / "web" / "deployment.yaml", DEPLOYMENT),
            kinds.Template(tmp_path / "web" / "service.yaml", SERVICE_AND_CONFIG),
        ),
    )

    rules = rbac.derive_rules([web], rbac.offline_resources(tmp_path / "crds"))

    child = ["create", "delete", "get", "list", "patch", "watch"]
    assert rules == [
        {"apiGroups": [""], "resources": ["configmaps", "services"], "verbs": child},
        {"apiGroups": [""], "resources": ["events"], "verbs": ["create", "patch"]},
        {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": child},
        {"apiGroups": ["events.k8s.io"], "resources": ["events"], "verbs": ["create", "patch"]},
        {"apiGroups": ["example.com"], "resources": ["webs"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": ["example.com"], "resources": ["webs/finalizers"], "verbs": ["update"]},
        {"apiGroups": ["example.com"], "resources": ["webs/status"], "verbs": ["get", "patch", "update"]},
        # The engine's own KindRollouts, one for each kind it serves.
        {"apiGroups": ["stencil.dev"], "resources": ["kindrollouts"], "verbs": ROLLOUT_VERBS},
        {"apiGroups": ["stencil.dev"], "resources": ["kindrollouts/status"], "verbs": ["patch"]},
    ]
