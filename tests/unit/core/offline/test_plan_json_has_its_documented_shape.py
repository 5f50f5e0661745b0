import dataclasses

from engine.core.model.identity import ChildId
from engine.core.offline import crdchanges, fleet, fleetreport


def test_plan_json_has_its_documented_shape() -> None:
    child = ChildId.at("apps/v1", "Deployment", "ns", "a-web")
    plans = [
        fleet.ParentPlan(
            "ns/a",
            updates=(fleet.Update(child, ("spec.replicas",)),),
            releases=(ChildId.at("v1", "ConfigMap", "ns", "a-claim"),),
            kept=(ChildId.at("v1", "Secret", "ns", "a-password"),),
            patches=(ChildId.at("v1", "Namespace", "", "team-a"),),
        ),
        fleet.ParentPlan("ns/b", failure=fleet.Failure("t.yaml:3", "spec.x", "boom", "RenderFailed")),
    ]
    refused = [fleetreport.Refusal("ns/a", str(child), "spec.replicas: Invalid value: -1")]

    found = fleetreport.as_json(fleetreport.summarize("Web", plans, refused, sampled=1))

    assert found == {
        "schema": 1,
        "kind": "Web",
        "parents": {"total": 2, "changed": 1, "unchanged": 0, "failed": 1},
        "fields": [{"kind": "Deployment", "field": "spec.replicas", "parents": 1, "examples": ["ns/a"]}],
        "failures": [
            {"where": "t.yaml:3", "field": "spec.x", "message": "boom", "parents": 1, "examples": ["ns/b"]}
        ],
        "creates": [],
        "prunes": [],
        "adopts": [],
        "releases": [{"kind": "ConfigMap", "children": 1, "parents": 1, "examples": ["ns/a-claim"]}],
        "kept": [{"kind": "Secret", "children": 1, "parents": 1, "examples": ["ns/a-password"]}],
        "patches": [{"kind": "Namespace", "children": 1, "parents": 1, "examples": ["team-a"]}],
        "conflicts": [],
        "dryRun": {
            "sampled": 1,
            "refused": [
                {
                    "parent": "ns/a",
                    "child": "Deployment ns/a-web",
                    "message": "spec.replicas: Invalid value: -1",
                }
            ],
        },
        "api": None,
    }
    assert fleetreport.as_json(fleetreport.summarize("Web", plans))["dryRun"] is None
    removed = crdchanges.Finding("v1", "spec.x", "removed: ...", "refused")
    summary = dataclasses.replace(
        fleetreport.summarize("Web", plans),
        api=crdchanges.Report("webs.example.com", "the installed CRD", (removed,)),
    )
    assert fleetreport.as_json(summary)["api"] == {
        "crd": "webs.example.com",
        "against": "the installed CRD",
        "refused": 1,
        "findings": [{"severity": "refused", "version": "v1", "path": "spec.x", "what": "removed: ..."}],
    }
    said = fleetreport.text(summary)
    assert said.startswith("API of webs.example.com against the installed CRD: 1 refused\n"), said
    assert said.index("  refused: v1 spec.x: removed: ...") < said.index("Web: 2 parents")
