"""A Widget kind that reads a ConfigMap it does not own (``references:``) into a child of its own."""

from __future__ import annotations

import base64
from typing import Any

KIND_YAML = """\
references:
  - id: config
    apiVersion: v1
    kind: ConfigMap
    name: spec.configName
    namespace: spec.configNamespace | default(namespace)
status:
  fields:
    echo: references.config.data.ECHO
"""

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-echo
data:
  ECHO_VALUE: "{{ references.config.data.ECHO }}"
"""


def shared_config(name: str, value: str) -> dict[str, Any]:
    """The ConfigMap someone else makes, which the Widget references."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"ECHO": value}}


def grant_reader(kube: Any, namespace: str, *plurals: str, account: str = "stencil-reader") -> None:
    """Let ``account`` of ``namespace``, which parents there read their references as, get, list and
    watch the core ``plurals`` there (what a namespace admin grants with a RoleBinding)."""
    name = f"{account}-reads"
    rules = [{"apiGroups": [""], "resources": list(plurals), "verbs": ["get", "list", "watch"]}]
    role = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": name}}
    kube.create({**role, "metadata": {"name": name, "namespace": namespace}, "rules": rules})
    kube.create(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": name, "namespace": namespace},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": name},
            "subjects": [{"kind": "ServiceAccount", "name": account, "namespace": namespace}],
        }
    )


def password_secret(kube: Any, namespace: str, password: str, name: str = "db") -> str:
    """Make the Secret ``name`` of ``namespace`` holding ``password``; its base64 text."""
    encoded = base64.b64encode(password.encode()).decode()
    metadata = {"name": name, "namespace": namespace}
    kube.create({"apiVersion": "v1", "kind": "Secret", "metadata": metadata, "data": {"password": encoded}})
    return encoded
