"""A reference reads the object its name expression gives, in the parent's namespace (or the
list its selector matches there, sorted by name); a required one not found is ``Missing``,
worded with apiVersion, kind, namespace and name; an optional one reads as None and holds
nothing back; an object of the right name in another namespace is not it."""

from __future__ import annotations

from typing import Any

from engine.core.decisions import referencing
from engine.core.model.kinds import Kind
from tests.unit import _references as refs


def _resolve(kind: Kind, parent: dict[str, Any], cached: list[dict[str, Any]]) -> referencing.Resolved:
    targets = referencing.targets(kind, parent, refs.builtin_scope)
    return referencing.resolve(targets, lambda target: cached)


def test_a_reference_by_name_reads_the_object_in_the_parents_namespace() -> None:
    kind = refs.kind(refs.reference())
    found = _resolve(kind, refs.parent(configName="echo-config"), [refs.config_map("echo-config")])
    assert found.missing == ()
    assert found.values["config"]["data"] == {"ECHO": "echo-config"}


def test_a_missing_required_reference_is_named_with_its_kind_namespace_and_name() -> None:
    kind = refs.kind(refs.reference())
    elsewhere = refs.config_map("echo-config", namespace="other")
    found = _resolve(kind, refs.parent(configName="echo-config"), [elsewhere, refs.config_map("x")])
    assert found.values == {"config": None}
    assert [str(m) for m in found.missing] == ["reference config: ConfigMap v1 shop/echo-config not found"]


def test_a_missing_optional_reference_reads_as_none_and_holds_nothing_back() -> None:
    kind = refs.kind(refs.reference(optional=True))
    found = _resolve(kind, refs.parent(configName="echo-config"), [])
    assert (found.values, found.missing) == ({"config": None}, ())


def test_a_selector_reads_every_match_in_the_namespace_sorted_by_name() -> None:
    kind = refs.kind(refs.reference("shared", selector={"team": "a"}))
    cached = [
        refs.config_map("b", team="a"),
        refs.config_map("a", team="a"),
        refs.config_map("c", team="b"),
        refs.config_map("d", namespace="other", team="a"),
    ]
    found = _resolve(kind, refs.parent(), cached)
    assert [obj["metadata"]["name"] for obj in found.values["shared"]] == ["a", "b"]
    assert found.missing == ()
