from engine.core.offline import fleet, fleetreport

MISSING = fleet.Failure("templates/web/t0.yaml:6", "", "no attribute 'tls'", "RenderFailed")
OTHER = fleet.Failure("templates/web/t1.yaml:2", "spec.port", "not an integer", "RenderFailed")


def test_a_plan_summary_groups_identical_render_failures() -> None:
    plans = [fleet.ParentPlan(f"ns/p{i}", failure=MISSING) for i in range(5)]
    plans += [fleet.ParentPlan("ns/q", failure=OTHER)]

    summary = fleetreport.summarize("Web", plans)

    assert [(g.what, g.count, g.examples) for g in summary.failures] == [
        (
            ("templates/web/t0.yaml:6", "", "no attribute 'tls'"),
            5,
            ("ns/p0", "ns/p1", "ns/p2"),
        ),
        (("templates/web/t1.yaml:2", "spec.port", "not an integer"), 1, ("ns/q",)),
    ]
    assert summary.failed == 6 and summary.broken
    text = fleetreport.text(summary)
    assert "  templates/web/t0.yaml:6: no attribute 'tls': 5 parents (ns/p0, ns/p1, ns/p2, ...)\n" in text
    assert "  templates/web/t1.yaml:2: spec.port: not an integer: 1 parent (ns/q)\n" in text
