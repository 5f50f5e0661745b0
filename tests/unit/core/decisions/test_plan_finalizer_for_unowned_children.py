"""Children that owner references cannot tie to their parent (another namespace, cluster-scoped)
are held by a finalizer; the patch that sets it is a compare-and-swap."""

from engine.core.decisions.plans import planning
from engine.core.model.children import placement
from tests.unit._children import PARENT_UID, REACH, as_observed, configmap

PARENT = {
    "apiVersion": "example.com/v1",
    "kind": "Parent",
    "metadata": {"name": "p", "namespace": "ns", "uid": PARENT_UID, "resourceVersion": "42"},
}


def test_only_a_child_without_owner_reference_needs_the_finalizer() -> None:
    owned = configmap("owned", {})
    elsewhere = configmap("elsewhere", {}, owner=None, labels={placement.PARENT_UID_LABEL: PARENT_UID})

    assert planning.needs_finalizer([owned]) is False
    assert planning.needs_finalizer([owned, elsewhere]) is True


def test_label_owned_children_are_those_of_this_parent_without_owner_reference() -> None:
    owned = as_observed(configmap("owned", {}))
    mine = as_observed(configmap("mine", {}, owner=None, labels={placement.PARENT_UID_LABEL: PARENT_UID}))
    theirs = as_observed(configmap("theirs", {}, owner=None, labels={placement.PARENT_UID_LABEL: "other"}))

    assert planning.label_owned([owned, mine, theirs], PARENT_UID, REACH) == [mine]


def test_finalizer_patch_adds_once_and_keeps_other_finalizers() -> None:
    parent = {**PARENT, "metadata": {**PARENT["metadata"], "finalizers": ["someone.else/keep"]}}

    ops = planning.finalizer_patch(parent, hold=True)

    assert ops == [
        {"op": "test", "path": "/metadata/resourceVersion", "value": "42"},
        {"op": "add", "path": "/metadata/finalizers", "value": ["someone.else/keep", planning.FINALIZER]},
    ]
    held = {**parent, "metadata": {**parent["metadata"], "finalizers": ops[1]["value"]}}
    assert planning.finalizer_patch(held, hold=True) is None


def test_finalizer_patch_removes_only_ours() -> None:
    parent = {**PARENT, "metadata": {**PARENT["metadata"], "finalizers": [planning.FINALIZER, "x/y"]}}

    assert planning.finalizer_patch(parent, hold=False) == [
        {"op": "test", "path": "/metadata/resourceVersion", "value": "42"},
        {"op": "add", "path": "/metadata/finalizers", "value": ["x/y"]},
    ]
    assert planning.finalizer_patch(PARENT, hold=False) is None
