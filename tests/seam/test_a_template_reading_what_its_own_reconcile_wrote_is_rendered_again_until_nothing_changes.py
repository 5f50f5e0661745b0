"""A template that reads a sibling the same reconcile wrote (``child()``) is rendered again at once,
since the watch events of the engine's own writes wake nobody: the reconcile asks to be run again,
and so on until a render writes nothing (the fixed point).  A kind whose every render writes (it
renders a child's resourceVersion into that child) stops asking after ``MAX_ECHOES`` in a row."""

from pathlib import Path

from engine.core.model.objects import Key
from engine.runtime.reconciling.reconcile import controller as controllers
from tests.seam._fake import FakeKube
from tests.seam._harness import NAMESPACE, engine_for, parent

FIRST_THEN_COPY = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-a
data:
  value: "{{ spec.value }}"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-b
data:
  copied: "{{ (child('ConfigMap', name ~ '-a') or {}).get('data', {}).get('value', 'unknown') }}"
"""

COLLECTION = "templates: [{file: children.yaml, collection: true}]\n"

READS_ITSELF = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-a
data:
  version: "{{ (child('ConfigMap', name ~ '-a') or {}).get('metadata', {}).get('resourceVersion', '') }}"
"""


def data(fake: FakeKube, name: str) -> dict[str, str]:
    return dict(fake.objects[("v1", "ConfigMap", NAMESPACE, name)].get("data") or {})


def test_a_copy_of_a_sibling_written_in_the_same_reconcile_fills_on_the_next_render(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake, value="x")
    with engine_for(fake, tmp_path, FIRST_THEN_COPY, COLLECTION) as controller:
        first = controller.reconcile(Key(NAMESPACE, "w"))
        assert data(fake, "w-b") == {"copied": "unknown"}
        assert first.requeue_after == 0.0

        second = controller.reconcile(Key(NAMESPACE, "w"))
        assert data(fake, "w-b") == {"copied": "x"}
        assert second.requeue_after == 0.0

        writes = len(fake.calls)
        third = controller.reconcile(Key(NAMESPACE, "w"))
        assert third.requeue_after is None, "a render that writes nothing is the fixed point"
        assert fake.calls[writes:] == [] or all(verb == "STATUS" for verb, _ in fake.calls[writes:])


def test_a_kind_that_renders_its_own_version_stops_asking_after_max_echoes(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    with engine_for(fake, tmp_path, READS_ITSELF) as controller:
        asked = [
            controller.reconcile(Key(NAMESPACE, "w")).requeue_after for _ in range(controllers.MAX_ECHOES + 2)
        ]

    assert asked[: controllers.MAX_ECHOES] == [0.0] * controllers.MAX_ECHOES
    assert asked[controllers.MAX_ECHOES :] == [None, None]
