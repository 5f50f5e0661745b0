"""The exported series carry controller-runtime's names and labels, so existing dashboards work."""

from engine.core.model.objects import Key
from engine.runtime.reconciling.workers.queue import WorkQueue
from engine.runtime.telemetry import observability

EXPECTED_SAMPLES = [
    ('controller_runtime_reconcile_total{controller="web",result="success"}', 1.0),
    ('controller_runtime_reconcile_errors_total{controller="web"}', 0.0),
    ('controller_runtime_reconcile_time_seconds_count{controller="web"}', 1.0),
    ('controller_runtime_active_workers{controller="web"}', 0.0),
    ('controller_runtime_max_concurrent_reconciles{controller="web"}', 4.0),
    ('workqueue_depth{controller="web",name="web"}', 0.0),
    ('workqueue_adds_total{controller="web",name="web"}', 1.0),
    ('workqueue_queue_duration_seconds_count{controller="web",name="web"}', 1.0),
    ('workqueue_work_duration_seconds_count{controller="web",name="web"}', 1.0),
    ('workqueue_retries_total{controller="web",name="web"}', 0.0),
    ('stencil_applies_total{kind="Deployment"}', 1.0),
    ('stencil_prunes_total{kind="Service"}', 1.0),
    ('stencil_apply_skips_total{kind="Deployment"}', 1.0),
]


def test_series_have_controller_runtime_names_and_labels() -> None:
    metrics = observability.Metrics()
    metrics.workers("web", 4)
    queue = WorkQueue(observer=metrics.workqueue("web"))
    queue.add(Key("default", "site"))
    key = queue.get(timeout=1)
    assert key == Key("default", "site")
    metrics.reconciled("web", "success", 0.01)
    metrics.applied("Deployment")
    metrics.skipped("Deployment")
    metrics.pruned("Service")
    queue.done(key)

    lines = metrics.exposition().decode().splitlines()

    for series, value in EXPECTED_SAMPLES:
        assert f"{series} {value}" in lines, series
