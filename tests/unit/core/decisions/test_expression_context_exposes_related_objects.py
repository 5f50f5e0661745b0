"""Status rules read related objects (e.g. grandchild Pods) as lists by kind, sorted by name."""

from engine.core.decisions.context import status_context
from engine.core.model.language.expressions import compile_expression

PARENT = {
    "apiVersion": "database.example.com/v1alpha1",
    "kind": "MySQLCluster",
    "metadata": {"name": "db", "namespace": "ns", "uid": "u"},
    "spec": {"size": 2},
}


def pod(name: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"}}


def test_related_pods_are_listed_by_kind_in_name_order() -> None:
    rule = compile_expression(
        "related.Pod | map(attribute='metadata.name') | list",
        file="kind.yaml",
        line=3,
        field="status.fields.nodes",
    )

    assert rule.evaluate(status_context(PARENT, [], [pod("db-b"), pod("db-a")])) == ["db-a", "db-b"]


def test_no_related_objects_reads_as_nothing() -> None:
    rule = compile_expression("related.Pod | length", file="kind.yaml", line=3, field="status.fields.count")

    assert rule.evaluate(status_context(PARENT, [])) == 0
