"""A first reconcile creates the children (a create-only apply claims a name atomically) and
writes the status once; the next one, reading its own writes from the cache, sends nothing at all.
The event of the creation is sent by the recorder's own thread, so it is awaited, and its place
among the writes is not the reconcile's."""

from pathlib import Path

from engine.core.model.objects import Key
from tests.seam._fake import FakeKube
from tests.seam._harness import SPEC_VALUE_IN_CONFIG_MAP_A, conditions, engine_for, parent


def test_first_reconcile_writes_children_and_status_then_steady_state_writes_nothing(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake, value="v")
    with engine_for(fake, tmp_path, SPEC_VALUE_IN_CONFIG_MAP_A) as controller:
        controller.reconcile(Key("ns", "w"))
        assert controller.host.recorder.flush()

        writes = fake.writes()
        assert [w for w in writes if w[0] != "EVENT"] == [
            ("APPLY", "ConfigMap ns/w-a"),
            ("STATUS", "Widget ns/w"),
        ]
        assert [w for w in writes if w[0] == "EVENT"] == [("EVENT", "Created")]
        assert conditions(fake)["Ready"]["status"] == "True"

        fake.calls.clear()
        controller.reconcile(Key("ns", "w"))
        assert controller.host.recorder.flush()

        assert fake.writes() == []
