"""A kind.yaml whose parent has a selector is a decorator: any kind, built-in too, may be its parent;
it selects by labels (sent to the server) and annotations (checked here), only in the namespaces its
placement names, and its children stay in the selected object's own namespace.  What a decorator
cannot say (a status, a schema, deleteWhen, a rollout, a teardown, children beyond the object's
namespace, no namespaces at all) is refused at its line; its patch may set only the labels and
annotations of the object it decorates; ``stencil rbac`` grants no status and no user role."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core import door
from engine.core.decisions.plans import ownership
from engine.core.model import kinds
from engine.core.model.children import patches
from engine.core.model.errors import KindError, PlacementError
from engine.core.offline import rbac

KIND_YAML = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: apps/v1
  kind: StatefulSet
  selector:
    matchLabels: {tier: web}
    matchExpressions: [{key: env, operator: In, values: [prod, stage]}, {key: legacy, operator: DoesNotExist}]
  annotationSelector:
    matchAnnotations: {expose: "yes"}
placement:
  namespaces: [shop]
templates: [service.yaml, {file: label.yaml, patch: true}]
"""
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: '{{ name }}'\nspec:\n  ports: [{port: 80}]\n"
LABEL = (
    "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: '{{ name }}'\n  labels: {exposed: 'true'}\n"
)


def _folder(tmp_path: Path, kind_yaml: str = KIND_YAML, label: str = LABEL) -> Path:
    folder = tmp_path / "expose"
    folder.mkdir()
    (folder / "kind.yaml").write_text(kind_yaml)
    (folder / "service.yaml").write_text(SERVICE)
    (folder / "label.yaml").write_text(label)
    return folder


def _statefulset(namespace: str = "shop", **meta: object) -> dict[str, object]:
    labels = {"tier": "web", "env": "prod"}
    metadata = {"name": "web", "namespace": namespace, "uid": "u-1", "labels": labels, **meta}
    metadata.setdefault("annotations", {"expose": "yes"})
    return {"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": metadata, "spec": {"replicas": 1}}


def test_a_decorator_selects_by_labels_the_server_filters_and_annotations_it_checks(tmp_path: Path) -> None:
    kind = kinds.load_kind(_folder(tmp_path))
    decorates = kind.decorates
    assert decorates is not None

    assert decorates.label_selector == "tier in (web),env in (prod,stage),!legacy"
    assert decorates.selects(_statefulset())
    assert not decorates.selects(_statefulset(annotations={}))
    assert not decorates.selects(_statefulset(annotations={"expose": "no"}))
    assert not decorates.selects(_statefulset("other"))
    assert not decorates.selects(_statefulset(labels={"tier": "web", "env": "dev"}))
    assert kind.placement.namespaces == ()  # its children stay in the object's own namespace


def test_its_children_are_owned_by_the_object_in_its_namespace_and_its_patch_kept_apart(
    tmp_path: Path,
) -> None:
    kind = kinds.load_kind(_folder(tmp_path))

    rendered = door.render(kind, _statefulset(), [])

    (service,) = rendered.children
    assert service["metadata"]["namespace"] == "shop"
    assert service["metadata"]["ownerReferences"][0]["uid"] == "u-1"
    (patch,) = [one.child for one in rendered.patches]
    assert patch["metadata"] == {"name": "web", "namespace": "shop", "labels": {"exposed": "true"}}


@pytest.mark.parametrize(
    ("label", "problem"),
    [
        (LABEL.replace("'{{ name }}'", "other"), "only the object it decorates"),
        (LABEL + "spec: {replicas: 3}\n", "spec: a decorator patches only labels and annotations"),
    ],
)
def test_its_patch_sets_only_labels_and_annotations_of_the_object(
    tmp_path: Path, label: str, problem: str
) -> None:
    kind = kinds.load_kind(_folder(tmp_path, label=label))

    with pytest.raises(PlacementError, match=problem):
        door.render(kind, _statefulset(), [])


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (("placement:\n  namespaces: [shop]\n", ""), "parent", "only in the namespaces named here"),
        (
            ("namespaces: [shop]", "namespaces: [shop]\n  clusterScoped: true"),
            "placement.clusterScoped",
            "owned by it",
        ),
        (("templates:", "status:\n  fields: {x: spec.replicas}\ntemplates:"), "status", "never writes"),
        (("templates:", "deleteWhen: 'true'\ntemplates:"), "deleteWhen", "never deletes"),
        (("templates:", "schema: {spec: {x: string}}\ntemplates:"), "schema", "serves no CRD"),
    ],
)
def test_what_a_decorator_cannot_say_is_refused_at_its_field(
    tmp_path: Path, change: tuple[str, str], field: str, problem: str
) -> None:
    with pytest.raises(KindError, match=problem) as raised:
        kinds.load_kind(_folder(tmp_path, KIND_YAML.replace(*change)))
    assert raised.value.field == field, raised.value


def test_a_built_in_parent_without_a_selector_is_still_refused(tmp_path: Path) -> None:
    plain = KIND_YAML.split("  selector:")[0] + "templates: [service.yaml]\n"

    with pytest.raises(KindError, match="built into Kubernetes"):
        kinds.load_kind(_folder(tmp_path, plain))


def test_rbac_grants_a_decorator_no_status_and_no_user_role(tmp_path: Path) -> None:
    kind = kinds.load_kind(_folder(tmp_path))

    def resources(api_version: str, name: str) -> tuple[str, str]:
        return ("apps" if "/" in api_version else "", name.lower() + "s")

    rules = rbac.derive_rules([kind], resources, common=False)

    granted = {resource: rule["verbs"] for rule in rules for resource in rule["resources"]}
    assert "statefulsets/status" not in granted, rules
    assert set(granted["statefulsets"]) == {"get", "list", "watch", "patch"}, rules
    assert rbac.user_roles([kind], resources) == []


def test_the_cache_keeps_what_a_patch_manager_holds_so_a_decorated_object_is_not_read_again() -> None:
    mine = {"f:metadata": {"f:labels": {"f:exposed": {}}}}
    obj = _statefulset(
        managedFields=[
            {"manager": "kube-controller-manager", "operation": "Update", "fieldsV1": {"f:spec": {}}},
            {"manager": "stencil-patch/expose/shop/web", "operation": "Apply", "fieldsV1": mine, "time": "t"},
        ]
    )

    kept = ownership.kept(obj)

    assert kept["metadata"]["managedFields"] == [
        {"manager": "stencil-patch/expose/shop/web", "operation": "Apply", "fieldsV1": mine}
    ]
    assert patches.held(patches.fields_of(kept, "stencil-patch/expose/shop/web")) == {("labels", "exposed")}
    assert patches.held(patches.fields_of(kept, "stencil-patch/expose/shop/other")) == set()
