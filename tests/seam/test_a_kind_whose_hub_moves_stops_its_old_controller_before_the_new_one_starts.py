"""A kind whose folder moves its hub from v1alpha1 to v1 while a reconcile at v1alpha1 is under
way: the controller at v1 is made only once that reconcile has ended, so that no two controllers
reconcile one parent at once; and afterwards a child's event reaches the controller at v1.

The API server keeps one object and serves it at both versions; the fake holds the parent once a
version, with one uid.
"""

from __future__ import annotations

import threading
from pathlib import Path

from engine.core.model.objects import Key, Obj
from engine.runtime.serving import manager
from tests._deadlines import eventually
from tests.seam._fake import FakeKube
from tests.seam._harness import CONFIG_MAP_A, NAMESPACE

OLD = ("tests.stencil.dev/v1alpha1", "Widget")
NEW = ("tests.stencil.dev/v1", "Widget")
UID = "00000000-0000-0000-0000-0000000000b1"
KIND_YAML = "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\nparent:\n  apiVersion: {}\n  kind: Widget\n"


def _folder(templates: Path, api_version: str) -> Path:
    folder = templates / "widget"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "children.yaml").write_text(CONFIG_MAP_A)
    (folder / "kind.yaml").write_text(KIND_YAML.format(api_version))
    return templates


def _parent(fake: FakeKube) -> None:
    for api_version, _ in (OLD, NEW):
        meta = {"name": "w", "namespace": NAMESPACE, "uid": UID}
        fake.add({"apiVersion": api_version, "kind": "Widget", "metadata": meta, "spec": {}})


def test_the_controller_at_the_new_hub_is_made_once_the_reconcile_at_the_old_one_ended(
    tmp_path: Path,
) -> None:
    fake = FakeKube()
    _parent(fake)
    entered, release = threading.Event(), threading.Event()
    order: list[str] = []

    def hold_the_first_apply(verb: str, written: Obj) -> None:
        if verb == "APPLY" and written["kind"] == "ConfigMap":
            order.append(
                f"applied by the controller at {written['metadata']['ownerReferences'][0]['apiVersion']}"
            )
            if not entered.is_set():
                entered.set()
                release.wait(10)
                order.append("the reconcile at v1alpha1 ends")

    fake.before_response = hold_the_first_apply
    templates = _folder(tmp_path / "templates", OLD[0])
    engine = manager.Engine(fake, templates, manager.Options(workers=1))
    try:
        engine.load()
        assert entered.wait(10), "the controller at v1alpha1 never applied its child"
        old_worker, draining = engine.workers[OLD], threading.Event()
        drain = old_worker.drain

        def draining_then_drain(deadline: float) -> bool:
            draining.set()
            return drain(deadline)

        old_worker.drain = draining_then_drain  # type: ignore[method-assign]
        _folder(templates, NEW[0])  # the author's change
        mover = threading.Thread(target=engine.load, name="kind-reloader")
        mover.start()
        eventually(lambda: draining.is_set() or not mover.is_alive(), what="the move to wait, or to end")
        assert draining.is_set(), (
            f"the kind moved to v1 without waiting for the reconcile at v1alpha1: {order}"
        )
        assert NEW not in engine.controllers and mover.is_alive()

        release.set()
        mover.join(10)
        assert list(engine.controllers) == [NEW]
        eventually(lambda: len(order) == 3, what="the controller at v1 to apply the child anew")
        assert order == [
            "applied by the controller at tests.stencil.dev/v1alpha1",
            "the reconcile at v1alpha1 ends",
            "applied by the controller at tests.stencil.dev/v1",
        ]
    finally:
        release.set()
        engine.stop(grace=0)


def test_a_childs_event_reaches_the_controller_at_the_new_hub(tmp_path: Path) -> None:
    fake = FakeKube()
    _parent(fake)
    templates = _folder(tmp_path / "templates", OLD[0])
    engine = manager.Engine(fake, templates, manager.Options(run_workers=False))
    try:
        engine.load()
        eventually(engine.synced, what="the parents' and the ConfigMaps' caches")
        _folder(templates, NEW[0])
        engine.load()
        eventually(engine.synced, what="the parents' cache at v1")
        queue = engine.workers[NEW].queue
        while (key := queue.get(timeout=0.5)) is not None:  # the parent's own ADDED, out of the way
            queue.done(key)

        child = fake.add(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": "w-a",
                    "namespace": NAMESPACE,
                    "labels": {"app.kubernetes.io/managed-by": "stencil"},
                    "ownerReferences": [
                        {"apiVersion": OLD[0], "kind": "Widget", "name": "w", "uid": UID, "controller": True}
                    ],
                },
            }
        )
        assert queue.get(timeout=10) == Key(NAMESPACE, "w"), "the child's event woke no controller"
        queue.done(Key(NAMESPACE, "w"))
        fake.remove("v1", "ConfigMap", NAMESPACE, child["metadata"]["name"])
        assert queue.get(timeout=10) == Key(NAMESPACE, "w"), "the child's deletion woke no controller"
    finally:
        engine.stop(grace=0)
