"""Ready holds for ``stencil test`` when the Ready condition is True of the current generation and
the status's ``observedGeneration`` is the current generation too; a status without that field is
read by its condition alone."""

from __future__ import annotations

from engine.tools.kindtest import settling
from tests.unit._settling import parent


def test_ready_in_the_settling_window_wants_the_status_observed_generation_current() -> None:
    assert settling.ready(parent()) is None
    assert settling.ready(parent(status_observed=0)) == (
        "status.observedGeneration is 0, not the current generation 1"
    )
    assert settling.ready(parent(observed=0)) == "Ready is True (AllReady) of generation 0, not the current 1"


def test_a_status_without_observed_generation_is_read_by_its_condition() -> None:
    bare = parent()
    del bare["status"]["observedGeneration"]

    assert settling.ready(bare) is None
