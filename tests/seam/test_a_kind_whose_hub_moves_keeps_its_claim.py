"""A kind whose hub moves to another version of its group keeps its claim: one Lease holds every
version of a group's kind, so the engine neither releases it nor takes it again, and serves the
new version at once.  The engine's kinds may be read with both versions in the middle of the move,
or with the new one alone; either way nothing is written to the claim until the kind goes."""

from __future__ import annotations

import pytest

from engine.core.decisions.coordination import holding as holding_core
from engine.runtime.serving import holding
from tests.seam._fake import FakeKube

OLD = ("tests.stencil.dev/v1alpha1", "Widget")
NEW = ("tests.stencil.dev/v1", "Widget")
CLAIM = ("coordination.k8s.io/v1", "Lease", "ns", holding_core.lease_name(*NEW))


@pytest.mark.parametrize("during", [[{OLD, NEW}], []], ids=["both-read-at-once", "new-read-alone"])
def test_a_kind_whose_hub_moves_keeps_its_claim_and_serves_the_new_version_at_once(
    during: list[set[tuple[str, str]]],
) -> None:
    fake, taken = FakeKube(), list[tuple[str, str]]()
    holds = holding.KindHolds(
        fake,  # type: ignore[arg-type]
        lambda: [],
        namespace="ns",
        identity="engine-a",
        heartbeat="ns/engine-a",
        heartbeat_duration=60,
        on_held=taken.append,
    )
    holds.sync({OLD})
    assert taken == [OLD] and fake.objects[CLAIM]["spec"]["holderIdentity"] == "engine-a"
    claim = fake.objects[CLAIM]

    for kinds in [*during, {NEW}, {NEW}]:
        holds.sync(kinds)
    assert taken == [OLD, NEW] and holds.holds(NEW)
    assert fake.objects[CLAIM] == claim  # neither released nor taken again: not written at all

    holds.sync(set())  # the kind goes: its claim is released
    assert fake.objects[CLAIM]["spec"]["holderIdentity"] == ""
