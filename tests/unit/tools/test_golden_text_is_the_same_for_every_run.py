"""The golden text of a child does not depend on the run: namespace, parent uid and applied hash
become placeholders, and the server's per-object values are left out."""

from __future__ import annotations

from engine.tools import kindtest
from tests.unit._live import live_deployment


def text(namespace: str, uid: str) -> str:
    return kindtest.golden_text([kindtest.golden_form(live_deployment(namespace, uid), namespace, [uid])])


def test_golden_text_is_the_same_for_every_run() -> None:
    first = text("st-web-1a2b3c", "0b1f6a3e-aaaa-4bbb-8ccc-000000000001")
    second = text("st-web-9f8e7d", "7c2d9e41-dddd-4eee-9fff-000000000002")

    assert first == second
    for run_value in ("st-web-1a2b3c", "0b1f6a3e-aaaa-4bbb-8ccc-000000000001", "uid-of-the-child"):
        assert run_value not in first
    for placeholder in (kindtest.NAMESPACE_PLACEHOLDER, kindtest.UID_PLACEHOLDER, kindtest.HASH_PLACEHOLDER):
        assert placeholder in first


def test_golden_text_changes_with_what_stencil_applied() -> None:
    assert text("ns", "uid") != kindtest.golden_text(
        [kindtest.golden_form(live_deployment("ns", "uid", replicas=3), "ns", ["uid"])]
    )
