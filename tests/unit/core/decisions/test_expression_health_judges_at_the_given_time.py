"""A status rule's ``health()`` judges at the time the reconcile passes in, not the wall clock.

An Unschedulable Pod is InProgress for kstatus' grace period after its creation and Failed
after it; the same inputs must give the same status, whenever the rule is evaluated.
"""

from engine.core.decisions.context import status_context
from engine.core.model.language.expressions import compile_expression

PARENT = {
    "apiVersion": "tests.stencil.dev/v1",
    "kind": "Widget",
    "metadata": {"name": "w", "namespace": "ns"},
}
POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "namespace": "ns", "creationTimestamp": "2026-01-01T00:00:00Z"},
    "status": {
        "phase": "Pending",
        "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
    },
}


def health_at(now: str) -> object:
    rule = compile_expression("health(child('Pod', 'p'))", file="kind.yaml", line=1, field="fields.h")
    return rule.evaluate(status_context(PARENT, [POD], now=now))


def test_an_unschedulable_pod_is_in_progress_within_its_grace_period() -> None:
    assert health_at("2026-01-01T00:00:05Z") == "InProgress"


def test_an_unschedulable_pod_has_failed_after_its_grace_period() -> None:
    assert health_at("2026-01-01T00:01:00Z") == "Failed"
