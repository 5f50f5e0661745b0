"""A dependency that is Current the moment it is created (a Namespace, a ConfigMap, anything
without status conditions) lets its waiting children go without any further event.

The ordering that lost the wake-up: the reconcile decides that ``config`` waits (its dependency
is not created yet), then creates the dependency and caches the server's answer at once.  The
watch event for that create arrives afterwards with the same resourceVersion and is dropped as
unchanged, so it wakes nobody; a Current-at-birth object sends no later event either.  The
parent slept until the resync.  Here the watch is held back until the reconcile has returned,
which forces that ordering every time."""

from __future__ import annotations

from pathlib import Path

from engine.core.model.objects import Key
from engine.runtime.reconciling.reconcile import reporting
from tests.seam._fake import FakeKube
from tests.seam._harness import CONFIG_KEY, GADGET_KEY, conditions, gadget_then_config, parent, worker_of


def test_a_dependency_current_at_creation_releases_the_child_waiting_for_it(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    with gadget_then_config(fake, tmp_path) as kind_controller:
        worker = worker_of(kind_controller)
        worker.queue.get(timeout=5)  # the parent's own ADDED event, taken out of the way
        worker.queue.done(Key("ns", "w"))

        fake.delivering.clear()  # the create's watch event comes only after its answer is cached
        worker.process(Key("ns", "w"))
        fake.delivering.set()

        assert GADGET_KEY in fake.objects
        # Nothing but the engine itself can wake the parent now: the Gadget's watch event
        # carries the version already cached, and the Gadget never changes again.
        while (key := worker.queue.get(timeout=reporting.PROGRESS_INTERVAL + 1)) is not None:
            worker.process(key)
        assert CONFIG_KEY in fake.objects, "the waiting child was never created"
        ready = conditions(fake)["ChildrenApplied"]
        assert (ready["status"], ready["reason"]) == ("True", "Applied")
