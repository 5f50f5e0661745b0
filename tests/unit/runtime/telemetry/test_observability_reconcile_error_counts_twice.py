"""A failed reconcile counts under result="error" and in the errors total, as in controller-runtime;
a terminal one also in the terminal-errors total."""

from engine.runtime.telemetry import observability


def test_error_counts_in_result_total_and_errors_total() -> None:
    metrics = observability.Metrics()

    metrics.reconciled("web", "error", 0.2)
    metrics.reconciled("web", "error", 0.3, terminal=True)
    metrics.reconciled("web", "requeue_after", 0.1)

    assert metrics.value("controller_runtime_reconcile_total", controller="web", result="error") == 2
    assert metrics.value("controller_runtime_reconcile_total", controller="web", result="requeue_after") == 1
    assert metrics.value("controller_runtime_reconcile_errors_total", controller="web") == 2
    assert metrics.value("controller_runtime_terminal_reconcile_errors_total", controller="web") == 1
    assert metrics.value("controller_runtime_reconcile_time_seconds_sum", controller="web") == 0.2 + 0.3 + 0.1
