"""Of the kinds that claim one parent kind (one group and kind, in any version), the one serving it
now keeps it, else the first in precedence; every other is refused, naming both sources."""

from __future__ import annotations

from engine.core.model.claimants import Claimant, settle

FOLDER = Claimant("network", "/templates/network", ("example.com", "Network"))
BUNDLE = Claimant("intruder", "ConfigMap stencil-system/intruder", ("example.com", "Network"))
OTHER = Claimant("widget", "/templates/widget", ("example.com", "Widget"))


def test_the_first_claimant_keeps_the_parent_kind_and_the_later_one_is_refused() -> None:
    refusals = settle({}, [FOLDER, BUNDLE, OTHER])
    assert [(r.refused, r.holder) for r in refusals] == [(BUNDLE, FOLDER)]
    message = refusals[0].message()
    assert "intruder from ConfigMap stencil-system/intruder is not loaded" in message
    assert "Network.example.com is served by kind network from /templates/network" in message


def test_the_kind_serving_the_parent_kind_now_keeps_it_whatever_comes_first() -> None:
    refusals = settle({("example.com", "Network"): "intruder"}, [FOLDER, BUNDLE])
    assert [(r.refused, r.holder) for r in refusals] == [(FOLDER, BUNDLE)]


def test_a_running_kind_no_longer_found_leaves_the_parent_kind_to_the_first() -> None:
    refusals = settle({("example.com", "Network"): "gone"}, [BUNDLE, FOLDER])
    assert [(r.refused, r.holder) for r in refusals] == [(FOLDER, BUNDLE)]


def test_kinds_of_different_parent_kinds_are_all_served() -> None:
    assert settle({}, [FOLDER, OTHER]) == []


def test_the_core_group_is_named_by_its_kind_alone() -> None:
    a = Claimant("a", "/a", ("", "Thing"))
    b = Claimant("b", "/b", ("", "Thing"))
    assert "its parent Thing is served by kind a from /a" in settle({}, [a, b])[0].message()
