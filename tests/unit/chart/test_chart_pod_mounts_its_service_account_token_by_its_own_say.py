"""The engine's pod states automountServiceAccountToken: true itself, so a ServiceAccount or a
cluster default that turns mounting off cannot leave the engine without its token."""

from __future__ import annotations

from tests.unit._chart import pod, render


def test_the_pod_spec_says_the_token_is_mounted() -> None:
    assert pod(render())["automountServiceAccountToken"] is True
