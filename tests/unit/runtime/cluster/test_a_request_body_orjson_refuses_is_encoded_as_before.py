"""A request's body is encoded by orjson; what orjson refuses (an integer beyond 64 bits, a key that
is not a string, nesting beyond its 254 levels) is encoded by the standard library as before, so the
API server, not the encoder, answers for it.  Either way the same JSON value goes out."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.runtime.cluster import transport


def _deep(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


@pytest.mark.parametrize(
    "body",
    [
        {"metadata": {"name": "web", "labels": {"app": "web"}}, "spec": {"replicas": 3, "ratio": 0.5}},
        [{"op": "test", "path": "/metadata/resourceVersion", "value": "7"}],
        {"spec": {"size": 2**70}},  # beyond 64 bits
        {"data": {1: "a key that is not a string"}},
        _deep(300),  # beyond orjson's depth
    ],
    ids=["object", "patch", "big-integer", "int-key", "deep"],
)
def test_the_body_is_the_json_of_the_value(body: Any) -> None:
    assert json.loads(transport.encoded(body)) == json.loads(json.dumps(body))
