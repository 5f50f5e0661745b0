"""Every engine serving a kind finds the same Lease: one name for every version of the kind's
group, another for another kind or group, always a valid DNS subdomain however long the group."""

import re

from hypothesis import given
from hypothesis import strategies as st

from engine.core.decisions.coordination import holding

LABEL = r"[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?"
SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
GROUPS = st.lists(st.from_regex(LABEL, fullmatch=True), min_size=1, max_size=14).map(".".join)
KINDS = st.from_regex(r"[A-Z][A-Za-z0-9]{0,62}", fullmatch=True)
VERSIONS = st.from_regex(r"v[1-9][0-9]?(alpha[1-9]|beta[1-9])?", fullmatch=True)


@given(group=GROUPS, kind=KINDS, one=VERSIONS, another=VERSIONS)
def test_every_version_of_a_kind_names_one_valid_lease(group: str, kind: str, one: str, another: str) -> None:
    name = holding.lease_name(f"{group}/{one}", kind)

    assert name == holding.lease_name(f"{group}/{another}", kind)
    assert len(name) <= holding.MAX_NAME
    assert SUBDOMAIN.fullmatch(name), name


@given(group=GROUPS, other=GROUPS, kind=KINDS, different=KINDS)
def test_another_kind_or_group_names_another_lease(group: str, other: str, kind: str, different: str) -> None:
    same = holding.lease_name(f"{group}/v1", kind)

    assert (holding.lease_name(f"{other}/v1", kind) == same) is (other == group)
    assert (holding.lease_name(f"{group}/v1", different) == same) is (different.lower() == kind.lower())


def test_a_core_kind_has_a_group_in_its_name() -> None:
    assert holding.lease_name("v1", "ConfigMap") == "stencil-kind.configmap.core"
