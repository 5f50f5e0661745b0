"""Two children of one name in two namespaces are two children: with only the one in ``a``
observed, ChildrenReady is False and names the one in ``b`` as not created yet."""

from pathlib import Path

from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.identity import ChildId
from engine.core.model.kinds import Kind

NOW = "2026-03-01T12:00:00Z"
KIND = Kind("web", Path("templates/web"), "tests.stencil.dev/v1", "Widget", templates=())
PARENT = {"apiVersion": "tests.stencil.dev/v1", "kind": "Widget", "metadata": {"name": "w", "namespace": "a"}}


def configmap(namespace: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "same", "namespace": namespace}}


def test_the_child_of_the_same_name_in_another_namespace_is_not_taken_for_it() -> None:
    desired = (ChildId("", "v1", "ConfigMap", "a", "same"), ChildId("", "v1", "ConfigMap", "b", "same"))
    status = derive_status(KIND, PARENT, [configmap("a")], Outcome(desired=desired), NOW)
    (ready,) = [c for c in status["conditions"] if c["type"] == "ChildrenReady"]
    assert (ready["status"], ready["message"]) == ("False", "ConfigMap same: not created yet")
