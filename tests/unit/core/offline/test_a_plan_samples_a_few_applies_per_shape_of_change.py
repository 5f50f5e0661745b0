from typing import Any

from engine.core.model.identity import ChildId
from engine.core.offline import fleet, fleetreport


def deployment(name: str) -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "ns"}}


def changing(name: str, field: str) -> fleet.ParentPlan:
    obj = deployment(f"{name}-web")
    return fleet.ParentPlan(f"ns/{name}", updates=(fleet.Update(ChildId.of(obj), (field,)),), applies=(obj,))


def test_a_plan_samples_a_few_applies_per_shape_of_change() -> None:
    plans = [changing(f"i{n}", "spec.image") for n in range(10)] + [changing("r", "spec.replicas")]
    new = deployment("n-web")
    plans.append(fleet.ParentPlan("ns/n", creates=(ChildId.of(new),), applies=(new,)))

    chosen = fleetreport.sample(plans, 2)

    assert [(parent, obj["metadata"]["name"], create) for parent, obj, create in chosen] == [
        ("ns/i0", "i0-web", False),
        ("ns/i1", "i1-web", False),
        ("ns/n", "n-web", True),
        ("ns/r", "r-web", False),
    ]
