"""/metrics serves the Metrics object's registry in Prometheus text format, values as they move."""

import urllib.request

from engine.runtime.telemetry import observability


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=5) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        text: str = response.read().decode()
    return text


def test_metrics_endpoint_shows_current_values() -> None:
    metrics = observability.Metrics()
    server = observability.serve(metrics, observability.Health(), "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.server_address[1]}/metrics"
    try:
        metrics.applied("Deployment")
        first = scrape(url)
        metrics.applied("Deployment")
        second = scrape(url)
    finally:
        server.shutdown()
        server.server_close()

    assert 'stencil_applies_total{kind="Deployment"} 1.0' in first.splitlines()
    assert 'stencil_applies_total{kind="Deployment"} 2.0' in second.splitlines()
