"""An engine without leader election renews the Lease ``stencil-engine.<identity>``: the identity
itself when it is already a DNS label, else made one and told apart from others by a digest."""

import re

from hypothesis import given
from hypothesis import strategies as st

from engine.core.decisions.coordination import holding

SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


@given(identity=st.text(min_size=1, max_size=400))
def test_every_identity_names_a_valid_lease(identity: str) -> None:
    name = holding.heartbeat_name(identity)

    assert len(name) <= holding.MAX_NAME
    assert SUBDOMAIN.fullmatch(name), name
    assert name.startswith(holding.HEARTBEAT_PREFIX)


def test_a_plain_identity_reads_as_itself_and_others_differ_by_digest() -> None:
    assert holding.heartbeat_name("engine-a") == "stencil-engine.engine-a"
    assert holding.heartbeat_name("host_1") != holding.heartbeat_name("host-1")
    assert holding.heartbeat_name("Host_1").startswith("stencil-engine.host-1.")
