"""Merging grants into PolicyRules neither loses nor adds a permission, and keeps one group per rule
and each resource in one rule per group."""

from hypothesis import given
from hypothesis import strategies as st

from engine.core.offline import rbac

names = st.sampled_from(["", "apps", "batch", "example.com"])
resources = st.sampled_from(["pods", "jobs", "webs", "webs/status", "configmaps"])
verbs = st.sets(st.sampled_from(["get", "list", "watch", "create", "patch", "update", "delete"]), min_size=1)


@given(st.lists(st.tuples(names, resources, verbs), max_size=20))
def test_merge_preserves_the_set_of_permissions(grants: list[tuple[str, str, set[str]]]) -> None:
    rules = rbac.merge(grants)

    granted = {(g, r, v) for g, r, vs in grants for v in vs}
    given_by_rules = {
        (rule["apiGroups"][0], r, v) for rule in rules for r in rule["resources"] for v in rule["verbs"]
    }
    assert given_by_rules == granted
    assert all(len(rule["apiGroups"]) == 1 for rule in rules)
    placed = [(rule["apiGroups"][0], r) for rule in rules for r in rule["resources"]]
    assert len(placed) == len(set(placed))
    assert rules == sorted(rules, key=lambda r: (r["apiGroups"], r["resources"], r["verbs"]))
