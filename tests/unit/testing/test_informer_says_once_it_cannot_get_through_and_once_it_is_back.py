"""An informer that cannot get through says so once for each reason, and once when a watch is
accepted again, while that watch is still open.

The order is that of an API server killed and started again under a tight priority-and-fairness
budget: the watch breaks off, the server is away for a while (connections refused), then it is
back but turns the watch away with 429 a few times, then accepts it.  Retrying each second for
minutes must not write a line a second, and must not be silent either: the reader learns the
server is away, then that it is throttling, then that the informer is back, without waiting for
the watch to end minutes later.
"""

from __future__ import annotations

import logging

import pytest

from engine.core.model import errors
from engine.runtime.cluster.watching import Informer
from tests._deadlines import eventually
from tests.unit.testing.test_cache_informer_loop import CONFIGMAPS, ScriptedServer, cm

RETRY = 0.01  # the server's pace, short so the test is quick


def refused() -> errors.Unreachable:
    error = errors.Unreachable("watch configmaps: the API server did not answer: Connection refused")
    error.retry_after = RETRY
    return error


def throttled() -> errors.TooManyRequests:
    return errors.TooManyRequests(429, "Too many requests, please try again later.", retry_after=RETRY)


def test_a_throttled_return_is_told_once_per_reason_and_the_accepted_watch_at_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    server = ScriptedServer(
        listings=[([cm("a", "1")], "10")],
        watches=[[refused()], [refused()], [refused()], [throttled()], [throttled()], [throttled()]],
    )
    informer = Informer(server, CONFIGMAPS)
    with caplog.at_level(logging.WARNING, logger="engine.runtime.cluster.watching"):
        informer.start()
        try:
            eventually(server.idle.is_set, interval=0.01, what="the watch accepted")
            said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        finally:
            informer.stop()
            server.release.set()

    assert said == [
        "configmaps: cannot watch: watch configmaps: the API server did not answer: Connection refused;"
        f" retrying every {RETRY:g} s",
        "configmaps: cannot watch: 429 Too many requests, please try again later.;"
        f" retrying every {RETRY:g} s",
        said[-1],
    ]
    assert said[-1].startswith("configmaps: lists and watches get through again, after ")
    assert server.watched_from == ["10"] * 7  # every retry from where the cache was: nothing relisted
