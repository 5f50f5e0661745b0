"""On the real plane, function-go-templating's "getComposedResource" example as ported
(examples/crossplane/getcomposedresource): the FlexibleServerConfiguration that reads the
FlexibleServer is made while the server is not ready, the XR is Ready beside FlexServerReady
False, and once a provider (the test, here) writes the server's id into its status, still not
ready, the configuration takes it.  The same kind without ``gatesReady: false`` on the server
makes the configuration wait for the server's Ready condition, and the XR is not Ready meanwhile."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration import _examples
from tests.integration._engine import ROOT, condition_is, conditions, event_said, eventually, running_engine

KIND = ROOT / "examples" / "crossplane" / "getcomposedresource"
EXAMPLE = KIND / "examples" / "example.yaml"
GROUP = "dbforpostgresql.azure.m.upbound.io/v1beta1"
INFORMS = "    gatesReady: false\n"
SERVER_ID = "/subscriptions/0000/resourceGroups/example/flexibleServers/example"


def marked(gates: bool) -> Callable[[str], str]:
    """kind.yaml as shipped; with ``gates``, the server's readiness holds back."""

    def rewrite(text: str) -> str:
        assert text.count(INFORMS) == 1, "the example no longer marks the server gatesReady: false"
        return text.replace(INFORMS, "") if gates else text

    return rewrite


def provider_says(kube: Kube, name: str, namespace: str, ready: str) -> None:
    """Write the server's status as a provider would: its id, and its Ready condition."""
    condition = {"type": "Ready", "status": ready, "reason": "Available" if ready == "True" else "Creating"}
    condition["lastTransitionTime"] = "2026-01-01T00:00:00Z"
    status = {"atProvider": {"id": SERVER_ID}, "conditions": [condition]}
    kube.patch_status(
        kube.resource(GROUP, "FlexibleServer"),
        name,
        namespace,
        [{"op": "add", "path": "/status", "value": status}],
    )


def configuration(kube: Kube, namespace: str) -> dict[str, Any] | None:
    return kube.get(
        kube.resource(GROUP, "FlexibleServerConfiguration"), "example-flex-server-config", namespace
    )


def server_id(obj: dict[str, Any] | None) -> Any:
    return ((obj or {}).get("spec") or {}).get("forProvider", {}).get("serverId")


def waiting(kube: Kube, xrs: Resource, namespace: str) -> Callable[[], dict[str, Any] | None]:
    """A probe: the XR, once it says a child waits for another."""

    def probe() -> dict[str, Any] | None:
        xr = kube.get(xrs, "example", namespace)
        applied = conditions(xr).get("ChildrenApplied") or {}
        return xr if applied.get("reason") == "WaitingForDependencies" else None

    return probe


@pytest.mark.parametrize("gates", [False, True])
def test_a_server_not_ready_yet_is_read_by_its_configuration(
    kube: Kube, namespace: str, tmp_path: Path, gates: bool
) -> None:
    templates = _examples.served(kube, KIND, tmp_path, marked(gates))
    xrs = kube.resource("getcomposedresource.crossplane.examples.stencil.dev/v1beta1", "XR")
    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, manifests.read([EXAMPLE]), namespace)
        if not gates:
            xr = eventually(
                condition_is(kube, xrs, "example", namespace, "Ready", "True"), what="the XR Ready"
            )
            informs = conditions(xr)["FlexServerReady"]
            assert (informs["status"], informs["reason"]) == ("False", "ChildrenNotReady"), informs
            made_meanwhile = configuration(kube, namespace)
            assert made_meanwhile is not None and server_id(made_meanwhile) is None, made_meanwhile
            made = event_said(kube, namespace, "Created", "example-flex-server-config", about="example")
            eventually(made, what="a Created event naming the configuration")

            provider_says(kube, "example-flex-server", namespace, "False")
            eventually(
                lambda: server_id(configuration(kube, namespace)) == SERVER_ID,
                what="the configuration to take the id",
            )
            xr = kube.get(xrs, "example", namespace)
            assert conditions(xr)["FlexServerReady"]["status"] == "False", "the server became ready"
            assert conditions(xr)["Ready"]["status"] == "True", conditions(xr)["Ready"]
        else:
            xr = eventually(waiting(kube, xrs, namespace), what="the configuration to wait for the server")
            assert "flex-server-config waits for flex-server" in conditions(xr)["ChildrenApplied"]["message"]
            assert conditions(xr)["Ready"]["status"] == "False" and "FlexServerReady" not in conditions(xr)
            assert configuration(kube, namespace) is None, "the configuration did not wait"

            provider_says(kube, "example-flex-server", namespace, "True")
            eventually(condition_is(kube, xrs, "example", namespace, "Ready", "True"), what="the XR Ready")
            assert server_id(configuration(kube, namespace)) == SERVER_ID, (
                "the configuration was made without the id"
            )
