"""/readyz answers 503 until the controller marks the process ready, and 503 again when marked unready."""

import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from engine.runtime.telemetry import observability


@pytest.fixture
def served() -> Iterator[tuple[observability.Health, str]]:
    health = observability.Health()
    server = observability.serve(observability.Metrics(), health, "127.0.0.1", 0)
    try:
        yield health, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            code: int = response.status
    except urllib.error.HTTPError as error:
        code = error.code
        error.close()
    return code


def test_readyz_is_unavailable_until_marked_ready(served: tuple[observability.Health, str]) -> None:
    health, base = served

    before = status(base + "/readyz")
    health.mark_ready()
    after = status(base + "/readyz")
    health.mark_unready("shutting down")
    draining = status(base + "/readyz")

    assert (before, after, draining) == (503, 200, 503)


def test_healthz_is_ok_before_ready(served: tuple[observability.Health, str]) -> None:
    health, base = served

    assert not health.ready
    assert status(base + "/healthz") == 200
