"""A kind reconciled every so often (``reconcileEvery``) wakes each parent at its own phase of the
period: 10,000 parents made at once are spread evenly over it, a parent's wakes are a period apart
whenever it was last reconciled, and a duration kind.yaml cannot mean is refused at its line."""

from __future__ import annotations

import collections
from pathlib import Path

import pytest

from engine.core.decisions.plans import lifecycles
from engine.core.model import kinds
from engine.core.model.errors import KindError
from engine.core.model.objects import Key
from tests.unit import _kinds


def test_ten_thousand_parents_made_at_once_are_spread_over_the_period() -> None:
    period, now = 60.0, 1000.0
    wakes = [now + lifecycles.next_wake(Key("ns", f"p-{index}"), period, now) for index in range(10_000)]
    assert all(now < wake <= now + period for wake in wakes)
    tenths = collections.Counter(int((wake - now) // (period / 10)) for wake in wakes)
    assert sorted(tenths) == list(range(10)) and all(800 < n < 1200 for n in tenths.values()), tenths


def test_a_parent_keeps_its_phase_whenever_it_was_reconciled() -> None:
    period = 30.0
    wakes = [now + lifecycles.next_wake(Key("ns", "web"), period, now) for now in (0, 7.5, 29.9, 31, 1e6)]
    phases = {round(wake % period, 6) for wake in wakes}
    assert len(phases) == 1, phases


@pytest.mark.parametrize(("given", "seconds"), [("45s", 45.0), ("5m", 300.0), ("2h", 7200.0)])
def test_reconcile_every_reads_a_duration(tmp_path: Path, given: str, seconds: float) -> None:
    folder = _kinds.kind_folder(tmp_path, f"reconcileEvery: {given}\n")
    assert kinds.load_kind(folder).every == seconds


@pytest.mark.parametrize("given", ["0s", "5", "1d", "1m30s"])
def test_a_duration_kind_yaml_cannot_mean_is_refused_at_its_line(tmp_path: Path, given: str) -> None:
    folder = _kinds.kind_folder(tmp_path, f"reconcileEvery: '{given}'\n")
    with pytest.raises(KindError) as caught:
        kinds.load_kind(folder)
    assert caught.value.line == 6 and "reconcileEvery" in str(caught.value), caught.value
