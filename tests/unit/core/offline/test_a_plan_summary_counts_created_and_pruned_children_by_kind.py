from engine.core.model.identity import ChildId
from engine.core.offline import fleet, fleetreport


def test_a_plan_summary_counts_created_and_pruned_children_by_kind() -> None:
    plans = [
        fleet.ParentPlan(
            f"ns/{name}",
            creates=(
                ChildId.at("v1", "ConfigMap", "ns", f"{name}-a"),
                ChildId.at("v1", "ConfigMap", "ns", f"{name}-b"),
            ),
            prunes=(ChildId.at("v1", "Service", "ns", f"{name}-svc"),),
        )
        for name in ("x", "y")
    ]

    summary = fleetreport.summarize("Web", plans)

    assert [(g.what, g.children, g.count) for g in summary.creates] == [(("ConfigMap",), 4, 2)]
    assert [(g.what, g.children, g.count, g.examples) for g in summary.prunes] == [
        (("Service",), 2, 2, ("ns/x-svc", "ns/y-svc"))
    ]
    text = fleetreport.text(summary)
    assert "  ConfigMap: 4 of 2 parents (ns/x-a, ns/x-b, ns/y-a, ...)\n" in text
    assert "  Service: 2 of 2 parents (ns/x-svc, ns/y-svc)\n" in text
