"""Two examples that make the same cluster-scoped object (a Namespace named the same) clash: the
later one is named, with where the object comes from and the example that makes it first; the
same name in two namespaces, or in one example twice, is no clash."""

from __future__ import annotations

from engine.core.model.identity import ChildId
from engine.tools import isolation


def namespace(name: str) -> ChildId:
    return ChildId("", "v1", "Namespace", "", name)


def test_examples_making_the_same_cluster_scoped_object_clash() -> None:
    found = isolation.clashes(
        [
            ("tenant/a", [(namespace("tenant001"), "templates/tenant/namespace.yaml:4")]),
            ("tenant/b", [(namespace("tenant002"), "templates/tenant/namespace.yaml:4")]),
            ("tenant/c", [(namespace("tenant001"), "templates/tenant/namespace.yaml:4")]),
        ]
    )

    assert found == {
        2: [
            "templates/tenant/namespace.yaml:4: Namespace tenant001 is made by example tenant/a too; "
            "cluster-scoped objects are shared by every example of the run, so name them after the parent"
        ]
    }


def test_one_example_making_an_object_twice_does_not_clash_with_itself() -> None:
    made = [(namespace("shared"), "a.yaml:1"), (namespace("shared"), "b.yaml:1")]

    assert isolation.clashes([("tenant/a", made)]) == {}


def test_an_example_that_is_not_run_holds_nothing() -> None:
    found = isolation.clashes(
        [
            ("x/a", [(namespace("one"), "t.yaml:1")]),
            ("x/b", [(namespace("one"), "t.yaml:1"), (namespace("two"), "t.yaml:2")]),
            ("x/c", [(namespace("two"), "t.yaml:2")]),
        ]
    )

    assert list(found) == [1]
