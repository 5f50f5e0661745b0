"""A 429 from priority and fairness, whose body is plain text, is a ``TooManyRequests`` error
that says the server's words and carries its ``Retry-After`` (1 s when the header is missing):
never a crash on a body that is not JSON."""

from __future__ import annotations

import pytest

from engine.core.model import errors
from tests.unit._throttling import throttling_server


@pytest.mark.parametrize(("header", "seconds"), [("3", 3.0), ("0", 0.0), (None, 1.0), ("soon", 1.0)])
def test_a_plain_text_429_is_an_error_carrying_the_servers_retry_after(
    header: str | None, seconds: float
) -> None:
    path = "/api/v1/namespaces/default/configmaps"
    refused = pytest.raises(errors.TooManyRequests)
    with throttling_server(retry_after=header) as (server, kube), refused as caught:
        kube.request("GET", path)

    assert caught.value.status == 429
    assert caught.value.retry_after == seconds
    assert str(caught.value).endswith("Too many requests, please try again later."), str(caught.value)
    # Asked once: trying again is the caller's choice, at the pace the error carries.
    assert [(method, asked) for _, method, asked in server.seen] == [("GET", path)]
