"""Flags given as ``apiserver_args`` reach kube-apiserver and take effect.

The witness is the server's own arithmetic, not our command line: with API
Priority and Fairness (on by default) the server splits its concurrency limit,
``--max-requests-inflight`` plus ``--max-mutating-requests-inflight``, among
its priority levels, each getting ``ceil(limit * shares / total shares)``
seats, and reports the result as ``apiserver_flowcontrol_nominal_limit_seats``.
With 5 + 2 the levels get one to three seats each, where the defaults (400 +
200) would give them dozens.  The plane is this test's own, since the
session's is configured with no extra flags.
"""

from __future__ import annotations

import contextlib
import math
import re

import pytest

from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube
from tests._deadlines import eventually

pytestmark = pytest.mark.cluster

INFLIGHT, MUTATING = 5, 2
_NOMINAL = re.compile(r'^apiserver_flowcontrol_nominal_limit_seats\{priority_level="([^"]+)"\} (\S+)$', re.M)


def expected_seats(kube: Kube, limit: int) -> dict[str, int]:
    """What the server should give each priority level out of ``limit`` seats."""
    levels = kube.request("GET", "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations")["items"]
    shares = {
        level["metadata"]["name"]: level["spec"]
        .get(level["spec"]["type"].lower(), {})
        .get("nominalConcurrencyShares", 0)
        for level in levels
    }
    total = sum(shares.values())
    return {name: math.ceil(limit * share / total) for name, share in shares.items()}


def nominal_seats(kube: Kube) -> dict[str, int]:
    return {name: int(float(value)) for name, value in _NOMINAL.findall(kube.metrics())}


def test_inflight_limits_given_as_extra_flags_set_the_seats_of_every_priority_level() -> None:
    flags = [f"--max-requests-inflight={INFLIGHT}", f"--max-mutating-requests-inflight={MUTATING}"]
    with (
        LocalCluster(apiserver_args=flags) as cluster,
        contextlib.closing(Kube.from_kubeconfig(str(cluster.kubeconfig))) as kube,
    ):
        expected = expected_seats(kube, INFLIGHT + MUTATING)

        # The limits are applied by a controller inside the server: give it a moment.
        eventually(lambda: nominal_seats(kube) == expected, what=f"nominal seats {expected}")

        assert max(expected.values()) <= 3  # a few of the 7 seats each
        assert expected_seats(kube, 400 + 200) != expected  # the defaults would not pass
