"""Made-up tokens sent by the thousand each cost a review, never memory: the cache keeps at
most its size of tokens (the oldest go first), and keeps their hashes, not the tokens."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from engine.runtime.telemetry import delegation


def refuse(path: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"status": {"authenticated": False}}


def test_the_cache_never_holds_more_than_its_size_nor_a_token() -> None:
    gate = delegation.Delegate(refuse, size=16)

    for n in range(1000):
        assert gate.verdict(f"Bearer forged-{n}", "/metrics") == HTTPStatus.UNAUTHORIZED

    cache = gate._cache
    assert len(cache) == 16
    assert not any("forged" in digest for digest, _ in cache)
