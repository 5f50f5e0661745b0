"""A child kind the server does not serve yet costs no discovery request per reconcile, and is
picked up within seconds once its CRD is installed.

A parent renders a Gizmo before the Gizmo CRD exists.  While the parent is reconciled
again and again (each reconcile proven by its status reaching the new generation), the
engine asks the server about ``late.tests.stencil.dev/v1`` at most once per 5 s (the
engine's discovery-miss TTL), not on every reconcile.  Once the CRD is installed, and with
nothing else changing, the Gizmo is created and ``ChildrenApplied`` turns True within
seconds: a kind the server does not serve is not the parent's fault, so the parent is
looked at again at the discovery TTL's pace rather than after a backoff grown through
its failures (some fifty by then, which would have reached the 300 s cap).

The requests are counted on the engine's own client (a subclass of ``Kube``); the test
talks to the server through another one, so nothing it does clears the engine's
discovery cache.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import conditions, eventually, running_engine
from tests.integration._widgets import widget, write_kind
from tests.unit import _crs

GROUP = "late.tests.stencil.dev"
DISCOVERY_PATH = f"/apis/{GROUP}/v1"
MISS_TTL = 5.0  # seconds between two discoveries of a group version the server does not serve
WINDOW = 10.0  # seconds of reconciles over which discoveries are counted
MIN_RECONCILES = 10  # the window must hold many more reconciles than the TTL allows discoveries
PICKUP = 15.0  # seconds from the CRD being Established to ChildrenApplied=True

GIZMO_CRD: dict[str, Any] = _crs.definition(
    GROUP,
    {"plural": "gizmos", "singular": "gizmo", "kind": "Gizmo"},
    {"type": "object", "properties": {"spec": _crs.PRESERVED, "status": _crs.PRESERVED}},
    subresources={"status": {}},
)

TEMPLATE = f"""\
apiVersion: {GROUP}/v1
kind: Gizmo
metadata:
  name: {{{{ name }}}}-gizmo
spec:
  value: "{{{{ spec.value }}}}"
"""


class CountingKube(Kube):
    """The engine's client, noting each time it asks the server about the Gizmo group version."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.discoveries: list[float] = []  # shared with impersonating copies

    def request(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        if method == "GET" and path == DISCOVERY_PATH:
            self.discoveries.append(time.monotonic())
        return super().request(method, path, body, **kw)


def reconciled(kube: Kube, widgets: Resource, namespace: str, value: int) -> dict[str, Any]:
    """Change the parent's spec and wait until its status reports the new generation."""
    patched = kube.request(
        "PATCH",
        widgets.path(namespace, "late"),
        {"spec": {"value": str(value)}},
        content_type="application/merge-patch+json",
    )
    generation = patched["metadata"]["generation"]

    def observed() -> dict[str, Any] | None:
        obj = kube.get(widgets, "late", namespace)
        status = (obj or {}).get("status") or {}
        return obj if status.get("observedGeneration") == generation else None

    return eventually(observed, what=f"generation {generation} observed")


def established(kube: Kube, crds: Resource) -> bool:
    crd = kube.get(crds, GIZMO_CRD["metadata"]["name"])
    found = {c["type"]: c["status"] for c in ((crd or {}).get("status") or {}).get("conditions") or []}
    return found.get("Established") == "True"


def test_unserved_child_kind_costs_no_discovery_per_reconcile(
    kube: Kube, namespace: str, widgets: Resource, local_cluster: LocalCluster, tmp_path: Path
) -> None:
    crds = kube.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition")
    assert kube.get(crds, GIZMO_CRD["metadata"]["name"]) is None, "the Gizmo CRD must not be installed yet"
    templates = write_kind(tmp_path / "templates", {"gizmo.yaml": TEMPLATE})
    engine_kube = CountingKube.from_kubeconfig(str(local_cluster.kubeconfig))
    try:
        with running_engine(engine_kube, templates, namespace, resync=600):
            manifests.apply_all(kube, [widget("late", value="0")], namespace)
            applied = eventually(
                lambda: conditions(kube.get(widgets, "late", namespace)).get("TemplatesRendered"),
                what="a first reconcile",
            )
            assert (applied["status"], applied["reason"]) == ("False", "KindNotServed")
            # The first reconcile asked about the group version: the count below watches the
            # request discovery really makes, not a path nothing asks for any more.
            first = len(engine_kube.discoveries)
            assert first >= 1, f"the first reconcile never asked the server about {DISCOVERY_PATH}"

            # Reconcile after reconcile, for WINDOW seconds; count the discoveries meanwhile.
            started = time.monotonic()
            reconciles = 0
            while time.monotonic() - started < WINDOW:
                reconciles += 1
                obj = reconciled(kube, widgets, namespace, reconciles)
                assert conditions(obj)["TemplatesRendered"]["status"] == "False"
            elapsed = time.monotonic() - started
            asked = len(engine_kube.discoveries) - first
            assert reconciles >= MIN_RECONCILES
            assert asked <= elapsed / MISS_TTL + 1, (
                f"{asked} discoveries of {DISCOVERY_PATH} in {elapsed:.1f} s over {reconciles} reconciles"
            )

            # The CRD arrives, and nothing else changes: within PICKUP seconds the Gizmo is created.
            kube.apply(GIZMO_CRD)
            eventually(lambda: established(kube, crds), what="the Gizmo CRD Established")
            eventually(
                lambda: (
                    conditions(kube.get(widgets, "late", namespace))["ChildrenApplied"]["status"] == "True"
                ),
                timeout=PICKUP,
                what="ChildrenApplied=True once the CRD is there",
            )
            gizmo = kube.get(kube.resource(f"{GROUP}/v1", "Gizmo"), "late-gizmo", namespace)
            assert gizmo is not None and gizmo["spec"] == {"value": str(reconciles)}
    finally:
        engine_kube.close()
        kube.delete(crds, GIZMO_CRD["metadata"]["name"])
