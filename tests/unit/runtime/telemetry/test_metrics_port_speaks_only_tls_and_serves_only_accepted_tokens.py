"""The secure metrics port speaks TLS only, answers /metrics to an accepted token and 401 to
a request without one, and serves no probes: those are on a plain port of their own, which
serves no metrics."""

from __future__ import annotations

import http.client
import ssl
from collections.abc import Iterator
from typing import Any

import pytest

from engine.runtime.telemetry import delegation, observability


def review(path: str, body: dict[str, Any]) -> dict[str, Any]:
    token = body["spec"].get("token")
    return {"status": {"authenticated": token == "good", "user": {"username": "u"}, "allowed": True}}


@pytest.fixture
def ports() -> Iterator[tuple[int, int]]:
    metrics, health = observability.Metrics(), observability.Health()
    metrics.applied("Deployment")
    tls = delegation.tls_context(None, ["localhost"])
    secure = observability.serve(metrics, None, "127.0.0.1", 0, gate=delegation.Delegate(review), tls=tls)
    probes = observability.serve(None, health, "127.0.0.1", 0)
    try:
        yield secure.server_address[1], probes.server_address[1]
    finally:
        for server in (secure, probes):
            server.shutdown()
            server.server_close()


def https_get(port: int, path: str, token: str | None = None) -> tuple[int, str]:
    context = ssl.create_default_context()
    context.check_hostname, context.verify_mode = False, ssl.CERT_NONE  # self-signed
    connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=5)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    return response.status, response.read().decode()


def http_get(port: int, path: str) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    connection.request("GET", path)
    return connection.getresponse().status


def test_metrics_answer_an_accepted_token_over_tls_only(ports: tuple[int, int]) -> None:
    secure, _ = ports

    status, text = https_get(secure, "/metrics", "good")
    assert status == 200
    assert 'stencil_applies_total{kind="Deployment"} 1.0' in text.splitlines()
    assert https_get(secure, "/metrics")[0] == 401
    assert https_get(secure, "/metrics", "forged")[0] == 401
    with pytest.raises((http.client.RemoteDisconnected, ConnectionError)):
        http_get(secure, "/metrics")


def test_probes_are_plain_http_on_their_own_port_and_not_on_the_metrics_port(ports: tuple[int, int]) -> None:
    secure, probes = ports

    assert http_get(probes, "/healthz") == 200
    assert http_get(probes, "/readyz") == 503
    assert http_get(probes, "/metrics") == 404
    assert https_get(secure, "/healthz", "good")[0] == 404
