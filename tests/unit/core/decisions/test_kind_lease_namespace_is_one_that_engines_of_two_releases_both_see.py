"""Engines of two releases in two namespaces meet in one namespace: kube-system when they watch
every namespace, the first namespace watched when they watch some; a namespace given wins."""

from hypothesis import given
from hypothesis import strategies as st

from engine.core.decisions.coordination import holding

NAMESPACES = st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True)


def test_engines_watching_everything_meet_in_kube_system() -> None:
    # Where a release is installed plays no part: only what it watches.
    assert holding.lease_namespace(None, ()) == "kube-system"
    assert holding.lease_namespace("", ()) == "kube-system"


@given(watched=st.lists(NAMESPACES, min_size=1, max_size=4, unique=True), given_=NAMESPACES)
def test_engines_watching_some_meet_in_the_first_and_a_namespace_given_wins(
    watched: list[str], given_: str
) -> None:
    assert holding.lease_namespace(None, tuple(watched)) == watched[0]
    assert holding.lease_namespace(given_, tuple(watched)) == given_
    assert holding.lease_namespace(given_, ()) == given_
