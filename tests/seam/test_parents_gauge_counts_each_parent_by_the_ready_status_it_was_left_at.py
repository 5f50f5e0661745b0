"""``stencil_parents`` counts a kind's parents by the status of Ready that their last reconcile
wrote (or found already written), and forgets a parent once it is gone: the dashboard's
"parents Ready / not Ready" panel, counted without reading the cache at each scrape."""

import time
from pathlib import Path

from engine.core.model.objects import Key
from engine.runtime.telemetry import observability
from tests.seam._fake import FakeKube
from tests.seam._harness import (
    EMPTY_CONFIG_MAP_A,
    NAMESPACE,
    SPEC_VALUE_IN_CONFIG_MAP_A,
    engine_for,
    parent,
    worker_of,
)


def ready_counts(metrics: observability.Metrics) -> dict[str, float | None]:
    return {
        ready: metrics.value("stencil_parents", controller="widget", ready=ready)
        for ready in ("True", "False")
    }


def test_a_ready_parent_counts_once_and_not_after_it_is_deleted(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    metrics = observability.Metrics()
    with engine_for(fake, tmp_path, EMPTY_CONFIG_MAP_A, metrics=metrics) as controller:
        assert ready_counts(metrics) == {"True": 0, "False": 0}

        controller.reconcile(Key(NAMESPACE, "w"))
        controller.reconcile(Key(NAMESPACE, "w"))  # the status stands: still one parent

        assert ready_counts(metrics) == {"True": 1, "False": 0}
        fake.remove("tests.stencil.dev/v1", "Widget", NAMESPACE, "w")
        deadline = time.monotonic() + 5
        while ready_counts(metrics)["True"] and time.monotonic() < deadline:
            time.sleep(0.01)
        assert ready_counts(metrics) == {"True": 0, "False": 0}


def test_a_parent_whose_template_fails_counts_as_not_ready(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)  # no spec.value: the template fails
    metrics = observability.Metrics()
    with engine_for(fake, tmp_path, SPEC_VALUE_IN_CONFIG_MAP_A, metrics=metrics) as controller:
        worker_of(controller).process(Key(NAMESPACE, "w"))

        assert ready_counts(metrics) == {"True": 0, "False": 1}
