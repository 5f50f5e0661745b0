"""A dependency that is Current the moment it is created (a Namespace, a ConfigMap, anything
without status conditions) lets its waiting children go without any further event.

The ordering that lost the wake-up: the reconcile decides that ``quota`` waits (its dependency
is not created yet), then creates the dependency and caches the server's answer at once.  The
watch event for that create arrives afterwards with the same resourceVersion and is dropped as
unchanged, so it wakes nobody; a Current-at-birth object sends no later event either.  The
parent slept until the resync.  Here the watch is held back until the reconcile has returned,
which forces that ordering every time."""

from __future__ import annotations

from pathlib import Path

from engine.runtime import controller, manager
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube
from tests.seam._harness import NAMESPACE, conditions, parent

GADGET = """\
apiVersion: tests.stencil.dev/v1
kind: Gadget
metadata:
  name: {{ name }}-gadget
spec: {}
"""
QUOTA = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-quota
data: {}
"""
KIND_YAML = "templates:\n  - gadget.yaml\n  - {file: quota.yaml, after: [gadget]}\n"
GADGET_KEY = ("tests.stencil.dev/v1", "Gadget", NAMESPACE, "w-gadget")
QUOTA_KEY = ("v1", "ConfigMap", NAMESPACE, "w-quota")


def test_a_dependency_current_at_creation_releases_the_child_waiting_for_it(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    templates = write_kind(tmp_path / "templates", {"gadget.yaml": GADGET, "quota.yaml": QUOTA}, KIND_YAML)
    engine = manager.Engine(fake, templates, manager.Options(run_workers=False))
    try:
        engine.load()
        (kind_controller,) = engine.controllers.values()
        assert kind_controller.parents.wait_for_sync(5)
        kind_controller.queue.get(timeout=5)  # the parent's own ADDED event, taken out of the way
        kind_controller.queue.done("ns/w")

        fake.delivering.clear()  # the create's watch event comes only after its answer is cached
        kind_controller.process("ns/w")
        fake.delivering.set()

        assert GADGET_KEY in fake.objects
        # Nothing but the engine itself can wake the parent now: the Gadget's watch event
        # carries the version already cached, and the Gadget never changes again.
        while (key := kind_controller.queue.get(timeout=controller.PROGRESS_INTERVAL + 1)) is not None:
            kind_controller.process(key)
        assert QUOTA_KEY in fake.objects, "the waiting child was never created"
        ready = conditions(fake)["ChildrenApplied"]
        assert (ready["status"], ready["reason"]) == ("True", "Applied")
    finally:
        engine.stop(grace=0)
