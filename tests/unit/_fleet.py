"""Parents of the in-memory kind ``web`` and the children a converged engine left them, for the plan tests."""

from __future__ import annotations

from typing import Any

from engine.core.decisions.plans import planning
from engine.core.model.kinds import Kind
from engine.core.offline import fleet
from engine.core.templating import rendering
from tests.unit import _kinds

GREETING = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ name }}-greeting\n"
    "data:\n  greeting: {{ spec.greeting }}\n"
)


def parent(name: str, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": _kinds.API_VERSION,
        "kind": _kinds.KIND,
        "metadata": {"name": name, "namespace": "ns", "uid": f"uid-{name}"},
        "spec": spec,
    }


def applied(kind: Kind, cr: dict[str, Any]) -> list[dict[str, Any]]:
    """The children an engine applied for ``cr`` with ``kind``, as the server keeps them."""
    return [
        {**child, "metadata": {**child["metadata"], "uid": f"{child['metadata']['name']}-uid"}}
        for child in map(planning.with_hash, rendering.render(kind, cr, []))
    ]


def plan(before: Kind, after: Kind, cr: dict[str, Any]) -> fleet.ParentPlan:
    """The plan of ``cr``, converged with ``before``, rendered with ``after``."""
    return fleet.plan_parent(after, cr, applied(before, cr))
