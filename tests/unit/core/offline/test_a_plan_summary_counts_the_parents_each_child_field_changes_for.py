from engine.core.model.identity import ChildId
from engine.core.offline import fleet, fleetreport

IMAGE = "spec.template.spec.containers[0].image"


def updated(name: str, *fields: str) -> fleet.ParentPlan:
    child = ChildId.at("apps/v1", "Deployment", "ns", f"{name}-web")
    return fleet.ParentPlan(f"ns/{name}", updates=(fleet.Update(child, fields),))


def test_a_plan_summary_counts_the_parents_each_child_field_changes_for() -> None:
    plans = [
        updated("c", IMAGE),
        updated("a", IMAGE, "spec.replicas"),
        updated("b", IMAGE),
        fleet.ParentPlan("ns/d"),
    ]

    summary = fleetreport.summarize("Web", plans)

    assert [(g.what, g.count, g.examples) for g in summary.fields] == [
        (("Deployment", IMAGE), 3, ("ns/a", "ns/b", "ns/c")),
        (("Deployment", "spec.replicas"), 1, ("ns/a",)),
    ]
    assert (summary.total, summary.changed, summary.unchanged, summary.failed) == (4, 3, 1, 0)
    assert f"  Deployment {IMAGE}: 3 parents (ns/a, ns/b, ns/c)\n" in fleetreport.text(summary)
