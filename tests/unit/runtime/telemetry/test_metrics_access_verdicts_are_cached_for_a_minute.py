"""A scrape every few seconds costs the API server two reviews a minute, not two a scrape:
verdicts, refusals included, are kept for a minute under the token's hash; an API server
that could not answer is a 500 that is asked again at the next scrape."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from engine.core.model import errors
from engine.runtime.telemetry import delegation


class Clock:
    now = 0.0

    def __call__(self) -> float:
        return self.now


def allow_all(asked: list[str]) -> delegation.Review:
    def review(path: str, body: dict[str, Any]) -> dict[str, Any]:
        asked.append(path)
        return {"status": {"authenticated": True, "user": {"username": "u"}, "allowed": True}}

    return review


def test_a_verdict_is_reused_within_the_minute_and_asked_again_after() -> None:
    asked: list[str] = []
    clock = Clock()
    gate = delegation.Delegate(allow_all(asked), clock=clock)

    assert gate.verdict("Bearer t", "/metrics") == HTTPStatus.OK
    clock.now = delegation.CACHE_TTL - 1
    assert gate.verdict("Bearer t", "/metrics") == HTTPStatus.OK
    assert len(asked) == 2  # one TokenReview, one SubjectAccessReview
    clock.now = delegation.CACHE_TTL + 1
    assert gate.verdict("Bearer t", "/metrics") == HTTPStatus.OK
    assert len(asked) == 4


def test_a_refusal_is_cached_too() -> None:
    asked: list[str] = []

    def refuse(path: str, body: dict[str, Any]) -> dict[str, Any]:
        asked.append(path)
        return {"status": {"authenticated": False}}

    gate = delegation.Delegate(refuse, clock=Clock())
    for _ in range(5):
        assert gate.verdict("Bearer forged", "/metrics") == HTTPStatus.UNAUTHORIZED
    assert asked == [delegation.TOKEN_REVIEWS]


def test_an_unanswered_review_is_500_and_not_remembered() -> None:
    answers: list[Any] = [errors.Unreachable("connection refused")]
    asked: list[str] = []

    def flaky(path: str, body: dict[str, Any]) -> dict[str, Any]:
        if answers:
            raise answers.pop()
        return allow_all(asked)(path, body)

    gate = delegation.Delegate(flaky, clock=Clock())
    assert gate.verdict("Bearer t", "/metrics") == HTTPStatus.INTERNAL_SERVER_ERROR
    assert gate.verdict("Bearer t", "/metrics") == HTTPStatus.OK
