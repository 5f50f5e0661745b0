"""Every child carries Stencil's labels and, where Kubernetes allows one, a controller owner reference."""

from __future__ import annotations

from engine.core.model.children import placement
from engine.core.model.kinds import Placement
from engine.core.templating import rendering
from tests.unit import _kinds

ELSEWHERE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: shared\n"


def test_a_child_in_the_parents_namespace_has_a_controller_owner_reference_and_labels() -> None:
    template = _kinds.configmap("  a: b\n").replace("name: cm\n", "name: cm\n  labels: {team: x}\n")
    [child] = rendering.render(_kinds.kind(template), _kinds.parent(name="site", uid="u-42"), [])
    assert child["metadata"]["ownerReferences"] == [
        {
            "apiVersion": _kinds.API_VERSION,
            "kind": _kinds.KIND,
            "name": "site",
            "uid": "u-42",
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]
    assert child["metadata"]["labels"] == {
        "team": "x",
        placement.MANAGED_BY_LABEL: placement.MANAGED_BY_VALUE,
        placement.KIND_LABEL: "web",
        placement.PARENT_NAME_LABEL: "site",
        placement.PARENT_NAMESPACE_LABEL: "ns",
        placement.PARENT_UID_LABEL: "u-42",
    }


def test_a_template_cannot_overwrite_stencils_labels() -> None:
    template = _kinds.configmap("  a: b\n").replace(
        "name: cm\n", "name: cm\n  labels:\n    stencil.dev/parent-uid: forged\n"
    )
    [child] = rendering.render(_kinds.kind(template), _kinds.parent(uid="real"), [])
    assert child["metadata"]["labels"][placement.PARENT_UID_LABEL] == "real"


def test_a_child_in_another_namespace_has_labels_but_no_owner_reference() -> None:
    kind = _kinds.kind(ELSEWHERE, placement=Placement(namespaces=("shared",)))
    [child] = rendering.render(kind, _kinds.parent(), [])
    assert "ownerReferences" not in child["metadata"]
    assert child["metadata"]["labels"][placement.PARENT_UID_LABEL] == "uid-1"


def test_children_of_a_cluster_scoped_parent_are_owned_and_say_no_parent_namespace() -> None:
    kind = _kinds.kind(ELSEWHERE, placement=Placement(namespaces=("shared",)))
    [child] = rendering.render(kind, _kinds.parent(namespace=None), [])
    assert child["metadata"]["ownerReferences"][0]["uid"] == "uid-1"
    assert placement.PARENT_NAMESPACE_LABEL not in child["metadata"]["labels"]


def test_a_parent_without_a_uid_gets_the_all_zero_one() -> None:
    [child] = rendering.render(_kinds.kind(_kinds.configmap("  a: b\n")), _kinds.parent(uid=None), [])
    assert child["metadata"]["ownerReferences"][0]["uid"] == placement.NO_UID
    assert child["metadata"]["labels"][placement.PARENT_UID_LABEL] == "00000000-0000-0000-0000-000000000000"
