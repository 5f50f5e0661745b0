"""Status is written as a JSON patch against what was read: a field the rules stop yielding is
removed at the server, a field another writer set is kept, a write from a stale read is refused
and redone from the fresh parent, and once the status matches, nothing more is sent."""

from pathlib import Path

from engine.core.model.objects import Key
from tests.seam._fake import FakeKube
from tests.seam._harness import EMPTY_CONFIG_MAP_A, WIDGET, engine_for, parent

RULES = """\
status:
  fields:
    flag: "'on' if spec.flag else none"
"""


def status_writes(fake: FakeKube) -> int:
    return len([call for call in fake.calls if call[0] == "STATUS"])


def test_a_field_the_rules_stop_yielding_is_removed_and_another_writers_field_stays(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake, flag=True)
    with engine_for(fake, tmp_path, EMPTY_CONFIG_MAP_A, RULES) as controller:
        controller.reconcile(Key("ns", "w"))
        assert fake.objects[WIDGET]["status"]["flag"] == "on"

        # Another writer reports progress, then the spec stops asking for the flag.
        widget = fake.objects[WIDGET]
        reported = fake.add({**widget, "status": {**widget["status"], "progress": 50}})
        controller.parents.observe(reported)
        controller.parents.observe(fake.update_spec(*WIDGET, flag=False))
        controller.reconcile(Key("ns", "w"))

        status = fake.objects[WIDGET]["status"]
        assert "flag" not in status
        assert status["progress"] == 50
        written = status_writes(fake)
        controller.reconcile(Key("ns", "w"))
        controller.reconcile(Key("ns", "w"))
        assert status_writes(fake) == written


def test_a_status_write_from_a_stale_read_is_refused_and_done_again_from_the_fresh_parent(
    tmp_path: Path,
) -> None:
    fake = FakeKube()
    parent(fake, flag=True)
    with engine_for(fake, tmp_path, EMPTY_CONFIG_MAP_A, RULES) as controller:
        # Another writer reports progress; the watch is slow, so the engine reads a stale parent.
        fake.delivering.clear()
        fake.add({**fake.objects[WIDGET], "status": {"progress": 50}})

        result = controller.reconcile(Key("ns", "w"))

        assert result.requeue_after == 0.0  # refused: look again at once
        assert fake.objects[WIDGET]["status"] == {"progress": 50}  # not clobbered
        controller.reconcile(Key("ns", "w"))
        status = fake.objects[WIDGET]["status"]
        assert status["flag"] == "on" and status["progress"] == 50
        fake.delivering.set()
