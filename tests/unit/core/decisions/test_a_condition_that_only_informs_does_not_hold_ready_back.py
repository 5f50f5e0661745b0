"""A custom condition with ``gatesReady: false`` informs: it is written, False when its rule says
so, and ``Ready`` does not wait for it; the same rule gating (the default) holds ``Ready`` back.
kind.yaml says it as ``gatesReady``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from engine.core.decisions import conditions
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model import kinds
from tests.unit import _kinds
from tests.unit.core.decisions.test_status_custom_rules import NOW, PARENT, custom, kind


def _ready_and_it(gates: bool) -> tuple[str, str]:
    rule = dataclasses.replace(custom("false"), gates_ready=gates)
    found = derive_status(kind(rule), PARENT, [], Outcome(desired=()), NOW)["conditions"]
    ready, it = conditions.find_in(found, "Ready"), conditions.find_in(found, "ServiceAvailable")
    assert ready is not None and it is not None
    return ready["status"], it["status"]


def test_an_informing_condition_is_written_and_ready_does_not_wait_for_it() -> None:
    assert _ready_and_it(gates=False) == ("True", "False")
    assert _ready_and_it(gates=True) == ("False", "False")


def test_kind_yaml_says_gates_ready(tmp_path: Path) -> None:
    rules = "status:\n  conditions:\n"
    rules += "    - {type: Claimed, status: 'true', gatesReady: false}\n    - {type: Up, status: 'true'}\n"
    folder = _kinds.kind_folder(tmp_path, rules)
    assert [rule.gates_ready for rule in kinds.load_kind(folder).conditions] == [False, True]
