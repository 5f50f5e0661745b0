"""Conditions are a map keyed by type: never a duplicate, never reordered."""

from hypothesis import given
from hypothesis import strategies as st

from engine.core.decisions.conditions import Condition, set_condition

NOW = "2026-01-01T10:00:00Z"


def listed(types: list[str]) -> list[dict[str, str]]:
    return [
        {"type": t, "status": "True", "reason": "Fine", "message": "", "lastTransitionTime": NOW}
        for t in types
    ]


def test_condition_replaces_the_entry_of_its_type_where_it_stands() -> None:
    existing = listed(["Ready", "Available", "Progressing"])

    updated = set_condition(existing, Condition("Available", "False", "Down", "0/2 available"), NOW)

    assert [c["type"] for c in updated] == ["Ready", "Available", "Progressing"]
    assert updated[1]["status"] == "False"
    assert updated[0] == existing[0] and updated[2] == existing[2]


def test_condition_of_a_new_type_is_appended() -> None:
    updated = set_condition(listed(["Ready"]), Condition("Available", "True", "Up"), NOW)

    assert [c["type"] for c in updated] == ["Ready", "Available"]


def test_condition_duplicates_left_by_an_older_writer_collapse_into_one() -> None:
    # The seed operator appended a fresh DeploymentAvailable on every reconcile.
    existing = listed(
        ["DeploymentAvailable", "DeploymentAvailable", "ServiceAvailable", "DeploymentAvailable"]
    )

    updated = set_condition(existing, Condition("DeploymentAvailable", "True", "Up"), NOW)

    assert [c["type"] for c in updated] == ["DeploymentAvailable", "ServiceAvailable"]


def test_condition_input_list_is_not_modified() -> None:
    existing = listed(["Available"])

    set_condition(existing, Condition("Available", "False", "Down"), "2026-02-02T00:00:00Z")

    assert existing == listed(["Available"])


@given(
    st.lists(st.sampled_from(["Ready", "Available", "Progressing", "Degraded"]), unique=True),
    st.lists(
        st.tuples(
            st.sampled_from(["Ready", "Available", "Degraded", "Synced"]), st.sampled_from(["True", "False"])
        )
    ),
)
def test_condition_types_stay_unique_whatever_is_set(
    initial: list[str], updates: list[tuple[str, str]]
) -> None:
    conditions = listed(initial)
    for type_, status in updates:
        conditions = set_condition(conditions, Condition(type_, status, "Changed"), NOW)

    types = [c["type"] for c in conditions]
    assert len(types) == len(set(types))
    # Types already present keep their relative order; new ones follow in first-set order.
    expected = list(initial)
    for type_, _ in updates:
        if type_ not in expected:
            expected.append(type_)
    assert types == expected
