"""An engine over the fake client, with no worker threads: tests call ``reconcile`` themselves."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.core.model.children import placement
from engine.core.model.objects import Key
from engine.runtime.reconciling import options, requeuing
from engine.runtime.reconciling.reconcile import controller
from engine.runtime.reconciling.workers import worker
from engine.runtime.serving import manager
from engine.runtime.telemetry import observability, tracing
from tests.integration._widgets import write_kind
from tests.seam._fake import FakeKube

NAMESPACE = "ns"
WIDGET = ("tests.stencil.dev/v1", "Widget", NAMESPACE, "w")  # the parent's key in ``FakeKube.objects``

# A template of one ConfigMap, ``<parent>-a``, its data to follow (from line 5).
CONFIG_MAP_A = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-a
"""
EMPTY_CONFIG_MAP_A = CONFIG_MAP_A + "data: {}\n"
SPEC_VALUE_IN_CONFIG_MAP_A = CONFIG_MAP_A + "data:\n  value: {{ spec.value }}\n"


@contextlib.contextmanager
def engine_for(
    fake: FakeKube,
    tmp_path: Path,
    template: str,
    kind_yaml_extra: str = "",
    metrics: observability.Metrics | None = None,
    clock: options.Clock = options.SYSTEM_CLOCK,
    tracer: tracing.Tracer = tracing.OFF,
) -> Iterator[controller.KindController]:
    """The Widget kind's controller, caches synced, stopped on the way out; ``clock`` is the
    engine's (``HandClock``: moved by the test)."""
    templates = write_kind(tmp_path / "templates", {"children.yaml": template}, kind_yaml_extra)
    options = manager.Options(run_workers=False, metrics=metrics, clock=clock, tracer=tracer)
    engine = manager.Engine(fake, templates, options)
    try:
        engine.load()
        (kind_controller,) = engine.controllers.values()
        assert kind_controller.parents.wait_for_sync(5)
        reconcile = kind_controller.reconcile

        def reconcile_then_wait_for_its_events(key: Key) -> requeuing.Result:
            # Events are sent by the recorder's thread; a test reads them once a reconcile returns.
            try:
                return reconcile(key)
            finally:
                engine.recorder.flush()

        kind_controller.reconcile = reconcile_then_wait_for_its_events  # type: ignore[method-assign]
        yield kind_controller
    finally:
        engine.stop(grace=0)


GADGET_KIND = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: tests.stencil.dev/v1
  kind: Gadget
"""


def write_gadget_kind(templates: Path, files: dict[str, str]) -> None:
    """A second kind beside the Widget: ``templates/gadget/``, whose parents are Gadgets."""
    folder = templates / "gadget"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "kind.yaml").write_text(GADGET_KIND)
    for name, text in files.items():
        (folder / name).write_text(text)


@dataclasses.dataclass
class HandClock:
    """An engine's clock that a test moves by hand (``seconds += ...``): both of its readings, the
    monotonic seconds and the time of day, from a fixed moment that is not now."""

    seconds: float = 0.0
    start: datetime.datetime = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)

    def monotonic(self) -> float:
        return self.seconds

    def wall(self) -> datetime.datetime:
        return self.start + datetime.timedelta(seconds=self.seconds)


def worker_of(kind_controller: controller.KindController) -> worker.Worker:
    """The worker that runs ``kind_controller``'s reconciles: its queue, ``process`` a turn of it."""
    engine = kind_controller.host
    assert isinstance(engine, manager.Engine)
    (found,) = [w for w in engine.workers.values() if w.reconciler is kind_controller]
    return found


def parent(fake: FakeKube, **spec: Any) -> dict[str, Any]:
    return fake.add(
        {
            "apiVersion": "tests.stencil.dev/v1",
            "kind": "Widget",
            "metadata": {"name": "w", "namespace": NAMESPACE},
            "spec": spec,
        }
    )


def child_of(fake: FakeKube, owner: dict[str, Any], name: str) -> dict[str, Any]:
    """A ConfigMap this parent made earlier, as the cache would list it."""
    meta = owner["metadata"]
    return fake.add(
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": name,
                "namespace": NAMESPACE,
                "labels": {
                    placement.MANAGED_BY_LABEL: placement.MANAGED_BY_VALUE,
                    placement.KIND_LABEL: "widget",
                    placement.PARENT_NAME_LABEL: meta["name"],
                    placement.PARENT_NAMESPACE_LABEL: NAMESPACE,
                    placement.PARENT_UID_LABEL: meta["uid"],
                },
                "ownerReferences": [
                    {
                        "apiVersion": "tests.stencil.dev/v1",
                        "kind": "Widget",
                        "name": meta["name"],
                        "uid": meta["uid"],
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "data": {},
        }
    )


def conditions(fake: FakeKube) -> dict[str, dict[str, Any]]:
    obj = fake.objects[WIDGET]
    return {c["type"]: c for c in obj.get("status", {}).get("conditions", [])}


# A Gadget, and a ConfigMap created only once the Gadget is Current (``after:``).
GADGET = """\
apiVersion: tests.stencil.dev/v1
kind: Gadget
metadata:
  name: {{ name }}-gadget
spec: {}
"""
CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-config
data: {}
"""
GADGET_THEN_CONFIG = "templates:\n  - gadget.yaml\n  - {file: config.yaml, after: [gadget]}\n"
GADGET_KEY = ("tests.stencil.dev/v1", "Gadget", NAMESPACE, "w-gadget")
CONFIG_KEY = ("v1", "ConfigMap", NAMESPACE, "w-config")


@contextlib.contextmanager
def gadget_then_config(fake: FakeKube, tmp_path: Path) -> Iterator[controller.KindController]:
    """A kind of two children: a Gadget, then (``after`` it) a ConfigMap; caches synced."""
    templates = write_kind(
        tmp_path / "templates", {"gadget.yaml": GADGET, "config.yaml": CONFIG}, GADGET_THEN_CONFIG
    )
    engine = manager.Engine(fake, templates, manager.Options(run_workers=False))
    try:
        engine.load()
        (kind_controller,) = engine.controllers.values()
        assert kind_controller.parents.wait_for_sync(5)
        yield kind_controller
    finally:
        engine.stop(grace=0)
