"""A child's event is routed by its owner reference's group and kind to that kind's controller
alone; no other kind's controller is asked for the parent's uid.

A Widget and a Gadget are given the same uid here, which a server never does, so that only the
route can tell them apart: waking every controller by uid would queue the Gadget too.
"""

from __future__ import annotations

from pathlib import Path

from engine.core.model.objects import Key
from engine.runtime.serving import manager
from tests._deadlines import eventually
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube
from tests.seam._harness import CONFIG_MAP_A, NAMESPACE, child_of, write_gadget_kind

SHARED_UID = "00000000-0000-0000-0000-00000000000a"
WIDGET = ("tests.stencil.dev/v1", "Widget")
GADGET = ("tests.stencil.dev/v1", "Gadget")


def test_a_widgets_childs_event_queues_the_widget_and_not_the_gadget(tmp_path: Path) -> None:
    fake = FakeKube()
    widget = fake.add({"apiVersion": WIDGET[0], "kind": "Widget", "metadata": _meta("w", SHARED_UID)})
    other_widget = fake.add({"apiVersion": WIDGET[0], "kind": "Widget", "metadata": _meta("w2", None)})
    fake.add({"apiVersion": GADGET[0], "kind": "Gadget", "metadata": _meta("g", SHARED_UID)})
    templates = write_kind(tmp_path / "templates", {"children.yaml": CONFIG_MAP_A})
    write_gadget_kind(templates, {"children.yaml": CONFIG_MAP_A})
    engine = manager.Engine(fake, templates, manager.Options(run_workers=False))
    try:
        engine.load()
        eventually(engine.synced, what="the parents' and the ConfigMaps' caches")
        widgets, gadgets = engine.workers[WIDGET].queue, engine.workers[GADGET].queue
        for queue in (widgets, gadgets):  # the parents' own ADDED events, taken out of the way
            while (key := queue.get(timeout=0)) is not None:
                queue.done(key)

        child_of(fake, widget, "w-a")  # owned by the Widget whose uid the Gadget shares
        child_of(fake, other_widget, "w2-a")  # one event later, on the same watch
        woken = []
        while Key("ns", "w2") not in woken:  # the first event was handled whole before the second
            key = widgets.get(timeout=10)
            assert key is not None, f"the Widgets' queue got {woken} and then nothing"
            woken.append(key)
            widgets.done(key)

        assert woken == [Key("ns", "w"), Key("ns", "w2")]
        assert gadgets.get(timeout=0) is None
    finally:
        engine.stop(grace=0)


def _meta(name: str, uid: str | None) -> dict[str, str]:
    return {"name": name, "namespace": NAMESPACE, **({"uid": uid} if uid else {})}
