"""A kind with ``reconcileEvery`` has each parent queued again within the period after a
reconcile, with no event to wake it; a kind without one waits for an event."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model.objects import Key
from tests.seam._fake import FakeKube
from tests.seam._harness import SPEC_VALUE_IN_CONFIG_MAP_A, engine_for, parent, worker_of


@pytest.mark.parametrize(("kind_yaml", "again"), [("reconcileEvery: 1s\n", True), ("", False)])
def test_a_parent_is_queued_again_on_its_kinds_period(tmp_path: Path, kind_yaml: str, again: bool) -> None:
    fake = FakeKube()
    parent(fake, value="v")
    with engine_for(fake, tmp_path, SPEC_VALUE_IN_CONFIG_MAP_A, kind_yaml) as controller:
        worker = worker_of(controller)
        while worker.queue.depth:  # the listing's own wake
            key = worker.queue.get(timeout=1)
            assert key is not None
            worker.queue.done(key)
        worker.process(Key("ns", "w"))
        assert (worker.queue.get(timeout=3.0) == Key("ns", "w")) is again
