"""A parent the rollout moves records its move in its status before any child changes: an engine
killed right after the first child of the new revision was written leaves the parent recorded at
the new revision (and Ready Unknown, moving), so the engine that starts next counts it as moving
within the bound and finishes its move, instead of taking it for one not moved yet."""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any

import pytest

from engine.core.decisions.coordination import rollout
from engine.core.model.objects import Key
from tests.seam._fake import FakeKube
from tests.seam._harness import CONFIG_MAP_A, EMPTY_CONFIG_MAP_A, WIDGET, engine_for, parent

ROLLOUT = "rollout: {maxUnavailable: 1, progressDeadline: 60s}\n"


class Killed(Exception):
    """The engine's process ends here: nothing after this write happens."""


def _record(fake: FakeKube) -> Any:
    return fake.objects[WIDGET]["status"]["kindRevision"]["number"]


def test_a_moving_parent_records_its_move_before_its_children_change(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    with engine_for(fake, tmp_path, EMPTY_CONFIG_MAP_A, ROLLOUT) as controller:
        controller.reconcile(Key("ns", "w"))
        assert _record(fake) == 1
        (tmp_path / "templates" / "widget" / "children.yaml").write_text(CONFIG_MAP_A + 'data: {v: "2"}\n')
        controller.host.load()  # type: ignore[attr-defined]
        step = controller.rollout.tick(datetime.datetime.now(datetime.UTC))
        assert step is not None and step.admit == (Key("ns", "w"),)

        def kill_after_a_child_is_written(verb: str, written: dict[str, Any]) -> None:
            if verb == "APPLY" and written["kind"] == "ConfigMap":
                raise Killed

        fake.before_response = kill_after_a_child_is_written
        with pytest.raises(Killed):
            for _ in range(3):
                controller.reconcile(Key("ns", "w"))

        assert fake.objects[("v1", "ConfigMap", "ns", "w-a")]["data"] == {"v": "2"}  # the child changed
        assert _record(fake) == 2  # and its parent had recorded the move first
        standing = rollout.standing(Key("ns", "w"), fake.objects[WIDGET])
        assert (standing.revision, standing.ready) == (2, False)  # moving, for the next engine
