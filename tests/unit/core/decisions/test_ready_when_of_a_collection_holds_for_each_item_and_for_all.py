"""A collection's ``readyWhen``: a rule that reads ``each`` must hold for every item, and names the
items it does not hold for; a rule that reads only ``all`` is one verdict for the whole list."""

from __future__ import annotations

import dataclasses

from engine.core.decisions import readiness
from engine.core.model.identity import ChildId
from tests.unit._jobs import observed_job, ready_when
from tests.unit._ordering import NOW, template

JOBS = [observed_job("w-0", succeeded=1), observed_job("w-1", succeeded=0)]
BY_IDENTITY = {ChildId.of(obj): obj for obj in JOBS}
RENDERED = [ChildId.of(obj) for obj in JOBS]


def workers(*texts: str) -> object:
    rules = tuple(ready_when(text, collection=True) for text in texts)
    return dataclasses.replace(template("workers"), collection=True, ready_when=rules)


def test_a_rule_over_each_names_the_items_it_does_not_hold_for() -> None:
    found = readiness.unready(workers("each.status.succeeded >= 1"), "workers", RENDERED, BY_IDENTITY, NOW)
    assert [unready.child.name for unready in found if unready.child] == ["w-1"]


def test_a_rule_over_all_is_one_verdict_for_the_collection() -> None:
    rule = "all | selectattr('status.succeeded') | list | length >= 1"
    assert readiness.unready(workers(rule), "workers", RENDERED, BY_IDENTITY, NOW) == []
    (found,) = readiness.unready(workers("all | length >= 3"), "workers", RENDERED, BY_IDENTITY, NOW)
    assert found.child is None
    assert str(found) == "workers (all): readyWhen 'all | length >= 3' does not hold (kind.yaml:9)"


def test_each_item_is_judged_beside_the_whole_list() -> None:
    rule = "each.status.succeeded >= 1 or all | length > 5"
    found = readiness.unready(workers(rule), "workers", RENDERED, BY_IDENTITY, NOW)
    assert [unready.child.name for unready in found if unready.child] == ["w-1"]
