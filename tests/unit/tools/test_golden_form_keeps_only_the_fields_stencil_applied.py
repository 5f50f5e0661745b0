"""A child's golden form holds the fields Stencil's Apply entry owns, with their live values, and
nothing the server defaulted or another manager wrote."""

from __future__ import annotations

from engine.tools import kindtest
from tests.unit._live import live_deployment


def test_golden_form_keeps_only_the_fields_stencil_applied() -> None:
    live = live_deployment("ns-a", "uid-a")

    form = kindtest.golden_form(live, "ns-a", ["uid-a"])

    spec = form["spec"]
    container = spec["template"]["spec"]["containers"]
    assert spec["replicas"] == live["spec"]["replicas"]
    assert [c["name"] for c in container] == ["web"]  # the injected sidecar is someone else's
    assert container[0]["image"] == live["spec"]["template"]["spec"]["containers"][0]["image"]
    assert "terminationMessagePath" not in container[0]  # a server default
    assert "revisionHistoryLimit" not in spec
    assert "restartPolicy" not in spec["template"]["spec"]
    assert spec["template"]["spec"]["volumes"] == live["spec"]["template"]["spec"]["volumes"]
    assert "status" not in form
    assert set(form["metadata"]["annotations"]) == {"stencil.dev/applied-hash"}
    assert {"uid", "resourceVersion", "generation", "creationTimestamp", "managedFields"}.isdisjoint(
        form["metadata"]
    )
    assert (form["apiVersion"], form["kind"], form["metadata"]["name"]) == (
        live["apiVersion"],
        live["kind"],
        live["metadata"]["name"],
    )
