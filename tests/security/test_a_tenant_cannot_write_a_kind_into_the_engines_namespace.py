"""A tenant cannot become a kind author.  The engine runs as a ServiceAccount holding exactly the
rules ``stencil rbac`` derives for a kind that lets any namespace in (``placement.namespaces:
["*"]``) and takes a ConfigMap's namespace, labels and data from its CR; that role may create
ConfigMaps anywhere.  A tenant's parent aiming a ConfigMap labelled ``stencil.dev/kind-bundle``
at the engine's own namespace, or an unlabelled one there, is refused with
``TemplatesRendered=False`` naming the template line; no ConfigMap appears there, no kind is
loaded from it, and the tenant's other parent keeps converging."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from engine.core.model import kinds
from engine.core.offline import rbac
from engine.runtime.cluster.kube import Kube, Resource
from engine.testing import service_account_token, token_kubeconfig
from engine.testing.plugin import namespace_name
from engine.tools import manifests
from tests.integration._engine import ROOT, condition_is, conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind
from tests.security import _rights

# What the tenant would have the engine load: a kind for DeployWebService making a StatefulSet.
PLANTED = {
    "kind.yaml": "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\n"
    "parent:\n  apiVersion: operator.wujiuye.com/v1beta1\n  kind: DeployWebService\n",
    "sts.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: planted\n",
}


def engine_account(kube: Kube, templates: Path, engine_namespace: str) -> None:
    """The ServiceAccount ``stencil`` in ``engine_namespace``, bound to the derived roles."""
    loaded, _ = kinds.load_kinds(templates)
    resources = rbac.offline_resources(ROOT / "tests" / "integration" / "fixtures")
    name = f"stencil-{engine_namespace}"
    derived = rbac.documents(loaded.values(), resources, name=name, namespace=engine_namespace)
    cluster_role, role = derived[:2]  # the kinds' Leases are not this test's
    account = {"kind": "ServiceAccount", "name": "stencil", "namespace": engine_namespace}
    bindings: list[dict[str, Any]] = [
        {"apiVersion": rbac.RBAC_API_VERSION, "kind": kind, "metadata": meta, "subjects": [account],
         "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": ref, "name": name}}
        for kind, ref, meta in (
            ("ClusterRoleBinding", "ClusterRole", {"name": name}),
            ("RoleBinding", "Role", {"name": name, "namespace": engine_namespace}),
        )
    ]  # fmt: skip
    service_account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "stencil"}}
    manifests.apply_all(kube, [service_account, role, bindings[1]], engine_namespace)
    manifests.apply_all(kube, [cluster_role, bindings[0]], None)


def test_a_tenants_parent_cannot_plant_a_kind_and_the_others_converge(
    kube: Kube,
    namespace: str,
    widgets: Resource,
    dws: Resource,
    local_cluster: Any,
    tmp_path: Path,
    connect: Any,
) -> None:
    engine_namespace = namespace_name("engine")
    kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": engine_namespace}})
    templates = write_kind(tmp_path / "templates", {"configmap.yaml": _rights.TEMPLATE}, _rights.ANYWHERE)
    # The example writes into another namespace, so the role derived holds what that takes.
    (templates / "widget" / "examples").mkdir()
    example = widget("example", target="team-b", labels={}, data={"value": "1"})
    (templates / "widget" / "examples" / "example.yaml").write_text(yaml.safe_dump(example))
    engine_account(kube, templates, engine_namespace)
    token = service_account_token(kube, engine_namespace, "stencil")
    as_engine = connect(token_kubeconfig(local_cluster.kubeconfig, token, tmp_path / "sa"))
    configmaps = kube.resource("v1", "ConfigMap")
    try:
        with running_engine(as_engine, templates, namespace, bundle_namespace=engine_namespace) as engine:
            benign = widget("benign", target=namespace, labels={"app": "web"}, data={"value": "1"})
            manifests.apply_all(kube, [benign], namespace)
            eventually(condition_is(kube, widgets, "benign", namespace, "Ready", "True"), what="benign Ready")

            labelled = {"stencil.dev/kind-bundle": "true"}
            hostile = [
                widget("planted", target=engine_namespace, labels=labelled, data=PLANTED),
                widget("unlabelled", target=engine_namespace, labels={}, data=PLANTED),
                widget("here", target=namespace, labels=labelled, data=PLANTED),
            ]
            manifests.apply_all(kube, hostile, namespace)
            for parent in hostile:
                name = parent["metadata"]["name"]
                eventually(
                    condition_is(kube, widgets, name, namespace, "TemplatesRendered", "False"),
                    what=f"{name} refused",
                )
                rendered = conditions(kube.get(widgets, name, namespace))["TemplatesRendered"]
                assert rendered["reason"] == "PlacementRefused", rendered
                assert f"{templates / 'widget' / 'configmap.yaml'}:" in rendered["message"], rendered

            # The tenant's other parent still converges: a change to it reaches its child.
            changed = widget("benign", target=namespace, labels={"app": "web"}, data={"value": "2"})
            manifests.apply_all(kube, [changed], namespace)
            eventually(
                lambda: (kube.get(configmaps, "benign", namespace) or {}).get("data") == {"value": "2"},
                what="the benign parent's ConfigMap to follow its spec",
            )
            there = {cm["metadata"]["name"] for cm in kube.list(configmaps, engine_namespace)[0]}
            assert not there & {"planted", "unlabelled"}, there
            assert kube.get(configmaps, "here", namespace) is None
            assert ("operator.wujiuye.com/v1beta1", "DeployWebService") not in engine.controllers
    finally:
        name = f"stencil-{engine_namespace}"
        kube.delete(kube.resource("rbac.authorization.k8s.io/v1", "ClusterRoleBinding"), name)
        kube.delete(kube.resource("rbac.authorization.k8s.io/v1", "ClusterRole"), name)
        kube.delete(kube.resource("v1", "Namespace"), engine_namespace)
