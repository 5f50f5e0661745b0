"""A Ready parent whose spec changes, while its new pod cannot start (every node cordoned),
reads InProgress to kstatus and Progressing to Argo CD once the engine has seen the change:
not Current because the generation was observed, nor Failed because nothing has given up yet."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.runtime.cluster.kube import Kube, Resource
from tests.integration import _clients as c
from tests.integration._engine import conditions, cordon, eventually, running_engine

pytestmark = pytest.mark.nodes


def test_a_parent_in_the_middle_of_a_change_reads_in_progress_and_progressing(
    kube: Kube, namespace: str, dws: Resource, tmp_path: Path
) -> None:
    templates = tmp_path / "templates"
    c.shipped_kind(templates)
    with running_engine(kube, templates, namespace):
        c.create_ready(kube, dws, c.web_service("web", namespace))
        with cordon(kube):
            change = [{"op": "replace", "path": "/spec/image", "value": "nginx:1.28"}]
            kube.patch_json(dws, "web", namespace, change)

            def seen_and_waiting() -> dict[str, object] | None:
                parent = kube.get(dws, "web", namespace)
                observed = (parent or {}).get("status", {}).get("observedGeneration")
                ready = conditions(parent).get("Ready", {}).get("status")
                changed = parent is not None and observed == parent["metadata"]["generation"] > 1
                return parent if changed and ready != "True" else None

            parent = eventually(seen_and_waiting, what="the change observed, web not Ready")
            (kstatus,) = c.read([parent])
            assert kstatus.kstatus == "InProgress", (kstatus, conditions(parent))
            argo = c.argo_cd_reads(templates, parent)
            assert argo.health == "Progressing", (argo, conditions(parent))
