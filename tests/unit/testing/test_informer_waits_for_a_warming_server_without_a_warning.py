"""An informer whose first listing meets an API server still filling its watch cache waits for it
with one INFO line, not a warning; a warm-up that lasts, or storage that says why it is not ready
(etcd down), is a warning.

A fresh or restarted kube-apiserver answers a streamed list (a watch), or a list of a CRD just
established, with 429 "storage is (re)initializing" and a Retry-After until its cacher has listed etcd
(k8s.io/apiserver's ``cacher.Watch``); the engine's own start against a new control plane meets it
for every informer, and handles it by waiting.
"""

from __future__ import annotations

import logging

import pytest

from engine.core.model import errors
from engine.runtime.cluster.watching import Informer
from tests._deadlines import eventually
from tests.unit.testing.test_cache_informer_loop import CONFIGMAPS, ScriptedServer, cm, end_of_listing

RETRY = 0.01  # the server's pace, short so the test is quick


def initializing(why: str = "") -> errors.ApiError:
    """The answer transport.error makes of the cacher's 429 (its Status body, its Retry-After)."""
    message = "storage is (re)initializing" + why
    body = {"kind": "Status", "message": message, "reason": "TooManyRequests", "code": 429}
    return errors.api_error(429, body, "watch configmaps", RETRY)


def said(
    warm_ups: list[errors.ApiError], caplog: pytest.LogCaptureFixture, *, limit: float = 60.0
) -> list[tuple[int, str]]:
    server = ScriptedServer(
        listings=[],
        watches=[*([w] for w in warm_ups), [("ADDED", cm("a", "1")), end_of_listing("10")]],
        streams=True,
    )
    informer = Informer(server, CONFIGMAPS)
    informer.warm_up_limit = limit
    with caplog.at_level(logging.DEBUG, logger="engine.runtime.cluster.watching"):
        informer.start()
        try:
            eventually(server.idle.is_set, interval=0.01, what="the listing streamed")
            assert informer.has_synced
        finally:
            informer.stop()
            server.release.set()
    return [(r.levelno, r.getMessage()) for r in caplog.records if r.levelno >= logging.INFO]


def test_a_warming_server_is_one_info_line_and_no_warning(caplog: pytest.LogCaptureFixture) -> None:
    assert said([initializing()] * 4, caplog) == [
        (
            logging.INFO,
            f"configmaps: cannot streamed list: 429 storage is (re)initializing; retrying every {RETRY:g} s",
        )
    ]


def test_a_warm_up_that_outlasts_its_limit_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    levels = [level for level, _ in said([initializing()] * 2, caplog, limit=0.0)]
    assert levels == [logging.WARNING, logging.WARNING]  # still warming up; then through again


def test_storage_that_says_why_it_is_not_ready_is_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    lines = said([initializing(": etcd is down")] * 2, caplog)
    assert [level for level, _ in lines] == [logging.WARNING, logging.WARNING]
    assert "etcd is down" in lines[0][1]
