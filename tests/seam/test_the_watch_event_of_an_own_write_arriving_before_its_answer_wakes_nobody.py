"""The watch event of the engine's own write, arriving before the write's answer, wakes nobody;
another writer's change arriving then still does.

Under load the API server's watch can beat a write's answer.  The ordering is forced: before
the fake answers a write (the child's create-only apply, the parent's status), it waits until
the write's own watch event is in the cache, while the parent is still being reconciled.  That
event says nothing the writer does not know, so the parent must not be queued again for it
(each such wake is a reconcile that finds nothing to do).  A change another writer makes to
the child while its apply is answered is news, and must wake the parent.
"""

from pathlib import Path
from typing import Any

from engine.core.model.objects import Key
from engine.runtime.reconciling.reconcile.controller import KindController
from tests._deadlines import eventually
from tests.seam._fake import FakeKube
from tests.seam._harness import NAMESPACE, SPEC_VALUE_IN_CONFIG_MAP_A, engine_for, parent, worker_of


def _cached(controller: KindController, obj: dict[str, Any]) -> str | None:
    """The resourceVersion the engine's cache holds for ``obj`` (None if it holds none)."""
    if obj["kind"] == "Widget":
        found = controller.parents.get(NAMESPACE, obj["metadata"]["name"])
    else:
        uid, name = obj["metadata"]["ownerReferences"][0]["uid"], obj["metadata"]["name"]
        named = [c for c in controller.host.children.of(uid) if c["metadata"]["name"] == name]
        found = named[0] if named else None
    return None if found is None else found["metadata"]["resourceVersion"]


def _reconcile_the_queued_parent(controller: KindController) -> None:
    key = worker_of(controller).queue.get(timeout=5)
    assert key == Key("ns", "w")
    worker_of(controller).process(key)


def test_own_writes_seen_by_the_watch_before_their_answers_do_not_queue_the_parent_again(
    tmp_path: Path,
) -> None:
    fake = FakeKube()
    parent(fake, value="v")
    with engine_for(fake, tmp_path, SPEC_VALUE_IN_CONFIG_MAP_A) as controller:
        forced = []

        def watch_event_first(verb: str, written: dict[str, Any]) -> None:
            version = written["metadata"]["resourceVersion"]
            eventually(lambda: _cached(controller, written) == version, what="the write's event")
            forced.append((verb, written["kind"]))

        fake.before_response = watch_event_first
        _reconcile_the_queued_parent(controller)

        assert forced == [("APPLY", "ConfigMap"), ("STATUS", "Widget")]
        assert fake.objects[("v1", "ConfigMap", NAMESPACE, "w-a")]["data"] == {"value": "v"}
        assert worker_of(controller).queue.get(timeout=0.5) is None


def test_another_writers_change_arriving_before_the_applys_answer_queues_the_parent(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake, value="v")
    with engine_for(fake, tmp_path, SPEC_VALUE_IN_CONFIG_MAP_A) as controller:

        def hand_edit_first(verb: str, written: dict[str, Any]) -> None:
            if verb != "APPLY":
                return
            fake.before_response = None
            edited = fake.add({**written, "data": {"value": "edited by hand"}})
            version = edited["metadata"]["resourceVersion"]
            eventually(lambda: _cached(controller, edited) == version, what="the edit's event")

        fake.before_response = hand_edit_first
        _reconcile_the_queued_parent(controller)

        # The edit woke the parent; its next reconcile puts the rendered value back.
        _reconcile_the_queued_parent(controller)
        assert fake.objects[("v1", "ConfigMap", NAMESPACE, "w-a")]["data"] == {"value": "v"}
