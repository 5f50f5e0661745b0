"""A tenant who may not read Secrets names one of its namespace in a parent, whose kind copies it
into a Secret child; the engine here holds every right of the cluster, yet reads references only
as the parent's namespace's ``stencil-reader``.  Until the namespace grants that account the
read, the parent says ``ReferenceForbidden`` at the reference's line, naming the account, and
nothing of the Secret is read or copied; once granted, the parent converges without being
touched.  Another tenant's parent, whose namespace grants its account less, is still refused:
one namespace's grant is not another's."""

from __future__ import annotations

from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import condition_is, conditions, eventually, running_engine
from tests.integration._referencing import grant_reader, password_secret
from tests.integration._widgets import API_VERSION, widget, write_kind

TENANT = "tenant-a@example.com"
KIND_YAML = """\
references:
  - {id: db, apiVersion: v1, kind: Secret, name: spec.secretName}
"""
COPY = """\
apiVersion: v1
kind: Secret
metadata:
  name: "{{ name }}-copy"
data:
  password: "{{ references.db.data.password }}"
"""


def _tenant(kube: Kube, namespace: str) -> Kube:
    """A client acting as a tenant who may make Widgets in ``namespace`` and read no Secret."""
    rules = [{"apiGroups": [API_VERSION.split("/")[0]], "resources": ["widgets"], "verbs": ["*"]}]
    kube.create(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "Role",
            "metadata": {"name": "widgets", "namespace": namespace},
            "rules": rules,
        }
    )
    kube.create(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "tenant-widgets", "namespace": namespace},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "widgets"},
            "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": TENANT}],
        }
    )
    return kube.impersonating(TENANT)


def test_a_parent_reads_a_secret_only_once_its_namespace_lets_its_reader(
    kube: Kube, namespace: str, tenant_b: str, widgets: Resource, tmp_path: Path
) -> None:
    secrets = kube.resource("v1", "Secret")
    encoded = password_secret(kube, namespace, "tenant-a-password-7731")
    password_secret(kube, tenant_b, "tenant-b-password-1904")
    grant_reader(kube, tenant_b, "configmaps")  # B lets its account read ConfigMaps, not Secrets
    tenant = _tenant(kube, namespace)
    templates = write_kind(tmp_path / "templates", {"mirror.yaml": COPY}, KIND_YAML)

    with running_engine(kube, templates, None):
        manifests.apply_all(tenant, [widget("a", secretName="db")], namespace)
        manifests.apply_all(kube, [widget("b", secretName="db")], tenant_b)
        for name, where in (("a", namespace), ("b", tenant_b)):
            parent = eventually(
                condition_is(kube, widgets, name, where, "TemplatesRendered", "False"),
                what=f"the parent in {where} refused",
            )
            rendered = conditions(parent)["TemplatesRendered"]
            assert rendered["reason"] == "ReferenceForbidden", rendered
            account = f"system:serviceaccount:{where}:stencil-reader"
            said = rendered["message"]
            assert "kind.yaml:" in said and "references[0]" in said and account in said, rendered
            assert "password" not in str(parent["status"]), parent["status"]
        assert kube.get(secrets, "a-copy", namespace) is None
        assert kube.get(secrets, "b-copy", tenant_b) is None

        grant_reader(kube, namespace, "secrets")  # A's namespace admin lets its account read them
        copy = eventually(lambda: kube.get(secrets, "a-copy", namespace), what="A's copy")
        assert copy["data"] == {"password": encoded}
        eventually(condition_is(kube, widgets, "a", namespace, "Ready", "True"), what="A Ready")

        b = kube.get(widgets, "b", tenant_b)
        assert conditions(b)["TemplatesRendered"]["reason"] == "ReferenceForbidden", b
        assert kube.get(secrets, "b-copy", tenant_b) is None
