"""Each Metrics object has its own registry: nothing leaks between two of them or into the global one."""

import prometheus_client

from engine.runtime.telemetry import observability


def test_two_metrics_objects_do_not_share_counts() -> None:
    first = observability.Metrics()
    second = observability.Metrics()

    first.applied("ConfigMap")

    assert first.value("stencil_applies_total", kind="ConfigMap") == 1
    assert second.value("stencil_applies_total", kind="ConfigMap") is None
    assert prometheus_client.REGISTRY.get_sample_value("stencil_applies_total", {"kind": "ConfigMap"}) is None
