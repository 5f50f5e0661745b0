"""A spec change the watch delivers before the answer to the engine's own write is not lost.

The ordering is forced: the fake stores the status write, then, before answering it,
the user's spec update is made and its watch event reaches the cache; only then does
the (older) write response arrive.  Caching that response would roll the parent back
to the old spec, and since the newer event was consumed, nothing would bring the new
spec to the children until a resync.
"""

from pathlib import Path
from typing import Any

from engine.core.model.objects import Key
from tests._deadlines import eventually
from tests.seam._fake import FakeKube
from tests.seam._harness import NAMESPACE, SPEC_VALUE_IN_CONFIG_MAP_A, WIDGET, engine_for, parent, worker_of


def test_a_spec_update_seen_before_the_status_write_response_reaches_the_children(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake, value="first")
    with engine_for(fake, tmp_path, SPEC_VALUE_IN_CONFIG_MAP_A) as controller:

        def spec_changes_while_the_write_is_answered(verb: str, written: dict[str, Any]) -> None:
            if verb != "STATUS" or written["kind"] != "Widget":
                return
            fake.before_response = None
            fake.update_spec(*WIDGET, value="second")
            eventually(
                lambda: controller.parents.get(NAMESPACE, "w")["spec"]["value"] == "second",  # type: ignore[index]
                what="the watch event of the spec update in the cache",
            )

        fake.before_response = spec_changes_while_the_write_is_answered
        controller.reconcile(Key("ns", "w"))

        cached = controller.parents.get(NAMESPACE, "w")
        assert cached is not None and cached["spec"]["value"] == "second"
        # The watch event queued the parent; working the queue brings the new spec to the child.
        while (key := worker_of(controller).queue.get(timeout=0.5)) is not None:
            worker_of(controller).process(key)
        assert fake.objects[("v1", "ConfigMap", NAMESPACE, "w-a")]["data"] == {"value": "second"}
        widget = fake.objects[WIDGET]
        assert widget["status"]["observedGeneration"] == widget["metadata"]["generation"] == 2
