"""Each seed's own sample CR, applied exactly as the seed wrote it, reaches the state the seed's
controller would have brought it to (tests/integration/_seeds.py says what that is per seed); a
Playbook, once its reader reports progress 100, is deleted as the seed deleted it."""

from __future__ import annotations

import pytest

from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests.integration._engine import ROOT, eventually, running_engine
from tests.integration._seeds import SEEDS, Seed, report_progress


@pytest.mark.parametrize("seed", SEEDS, ids=lambda seed: seed.folder)
def test_seed_sample_converges_unchanged(
    kube: Kube, namespace: str, crds_installed: list[str], seed: Seed
) -> None:
    res = kube.resource(seed.api_version, seed.kind)
    sample = seed.sample_cr()
    name = sample["metadata"]["name"]

    with running_engine(kube, ROOT / "templates", namespace):
        created = manifests.apply_all(kube, [sample], namespace)[0]

        def converged() -> Obj | None:
            parent = kube.get(res, name, namespace)
            return parent and seed.converged(kube, res, parent, namespace)

        parent = eventually(converged, timeout=120, what=f"the {seed.kind} sample to converge")
        assert parent["metadata"]["uid"] == created["metadata"]["uid"]
        # What the sample says is what the parent says: nothing of it was refused or rewritten (the
        # API server keeps MySQL's `version: 8.0` as 8, which equals 8.0).
        assert {field: parent["spec"][field] for field in sample["spec"]} == sample["spec"]

        if seed.kind == "Playbook":
            report_progress(kube, res, name, namespace, 100)
            eventually(lambda: kube.get(res, name, namespace) is None, what="the Playbook to be deleted")
