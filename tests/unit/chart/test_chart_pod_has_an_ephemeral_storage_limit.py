"""The engine's container has an ephemeral-storage limit, at least as large as its scratch
/tmp, so a full disk is the engine's eviction and never its node's problem."""

from __future__ import annotations

from tests.unit._chart import pod, render

UNITS = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30}


def quantity(text: str) -> int:
    for suffix, factor in UNITS.items():
        if text.endswith(suffix):
            return int(text.removesuffix(suffix)) * factor
    return int(text)


def test_ephemeral_storage_is_limited_and_covers_tmp() -> None:
    spec = pod(render())
    limits = spec["containers"][0]["resources"]["limits"]

    scratch = sum(quantity(v["emptyDir"]["sizeLimit"]) for v in spec["volumes"] if "emptyDir" in v)
    assert quantity(limits["ephemeral-storage"]) >= scratch
