"""Who may read /metrics is the API server's call: a TokenReview says who the bearer is, a
SubjectAccessReview whether that user may get the non-resource URL /metrics.  No token, a
token the API server rejects, and a user it does not allow are each refused with their own
status, and nothing is asked that the verdict does not need."""

from __future__ import annotations

from http import HTTPStatus
from typing import Any

from engine.runtime.telemetry import delegation

USER = {"username": "system:serviceaccount:monitoring:prometheus", "uid": "u-1",
        "groups": ["system:serviceaccounts", "system:authenticated"]}  # fmt: skip


class ApiServer:
    """Answers reviews as the API server would for one known token and one allowed user."""

    def __init__(self, allowed: bool) -> None:
        self.allowed = allowed
        self.asked: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        self.asked.append((path, body))
        if path == delegation.TOKEN_REVIEWS:
            known = body["spec"]["token"] == "good"
            return {"status": {"authenticated": True, "user": USER} if known else {"authenticated": False}}
        return {"status": {"allowed": self.allowed}}


def test_no_bearer_token_is_401_without_asking() -> None:
    server = ApiServer(allowed=True)
    gate = delegation.Delegate(server)

    for header in (None, "", "Basic Zm9vOmJhcg==", "Bearer ", "good"):
        assert gate.verdict(header, "/metrics") == HTTPStatus.UNAUTHORIZED, header
    assert server.asked == []


def test_a_token_the_api_server_rejects_is_401_and_no_access_review_follows() -> None:
    server = ApiServer(allowed=True)

    assert delegation.Delegate(server).verdict("Bearer forged", "/metrics") == HTTPStatus.UNAUTHORIZED
    assert [path for path, _ in server.asked] == [delegation.TOKEN_REVIEWS]


def test_a_user_not_allowed_to_get_metrics_is_403() -> None:
    gate = delegation.Delegate(ApiServer(allowed=False))

    assert gate.verdict("Bearer good", "/metrics") == HTTPStatus.FORBIDDEN


def test_an_allowed_user_is_200_after_asking_about_exactly_get_metrics_for_that_user() -> None:
    server = ApiServer(allowed=True)

    assert delegation.Delegate(server).verdict("bearer  good ", "/metrics") == HTTPStatus.OK
    (_, review), (path, access) = server.asked
    assert review == delegation.token_review("good")
    assert review["kind"] == "TokenReview" and review["spec"] == {"token": "good"}
    assert path == delegation.SUBJECT_ACCESS_REVIEWS
    assert access["kind"] == "SubjectAccessReview"
    assert access["spec"] == {
        "user": USER["username"],
        "uid": USER["uid"],
        "groups": USER["groups"],
        "nonResourceAttributes": {"path": "/metrics", "verb": "get"},
    }
