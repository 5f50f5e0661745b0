"""The configuration's token is asked for at most once a second, not at every request: asking runs
the official client's refresh hook, which renews an exec plugin's or a token file's token and
applies the whole kubeconfig again each time it runs.  A token renewed is sent from the next
second on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kubernetes import client, config

from engine.runtime.cluster import transport

KUBECONFIG = """apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
users: [{name: u, user: {token: first}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
"""


class _Asked(client.Configuration):  # type: ignore[misc]
    """A client configuration that counts how often its token is asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0
        self.token = "Bearer first"

    def get_api_key_with_prefix(self, identifier: str, alias: Any = None) -> str | None:
        self.asked += 1
        return self.token if identifier == "authorization" else None


def test_the_token_is_asked_for_once_a_second_and_a_renewed_one_is_sent() -> None:
    configuration = _Asked()
    now = [1000.0]
    token = transport.Token(configuration, clock=lambda: now[0])

    sent = {transport.headers(token, None, None)["Authorization"] for _ in range(200)}
    assert sent == {"Bearer first"} and configuration.asked == 1

    configuration.token = "Bearer renewed"
    now[0] += transport.TOKEN_RECHECK / 2
    assert transport.headers(token, None, None)["Authorization"] == "Bearer first"
    now[0] += transport.TOKEN_RECHECK / 2
    assert transport.headers(token, "application/json", None)["Authorization"] == "Bearer renewed"
    assert configuration.asked == 2


def test_a_kubeconfigs_token_is_sent_through_the_clients_own_refresh_hook(tmp_path: Path) -> None:
    (tmp_path / "config").write_text(KUBECONFIG)
    configuration = client.Configuration()
    config.load_kube_config(config_file=str(tmp_path / "config"), client_configuration=configuration)
    assert configuration.refresh_api_key_hook is not None
    assert transport.headers(transport.Token(configuration), None, None)["Authorization"] == "Bearer first"


def test_a_configuration_without_a_token_sends_no_authorization() -> None:
    token = transport.Token(client.Configuration())
    assert "Authorization" not in transport.headers(token, None, "system:serviceaccount:a:b")
