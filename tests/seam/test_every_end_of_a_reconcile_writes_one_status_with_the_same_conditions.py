"""However a reconcile ends (children applied, a template that does not render, a required
reference missing, a child the server refuses), the parent's status is written once, from one
place, and says the same set of conditions: Ready and each condition it is made of, never some of
them for one outcome and others for another (Flux's one deferred status patch)."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import errors
from engine.core.model.objects import Key
from tests.seam._fake import FakeKube
from tests.seam._harness import CONFIG_MAP_A, EMPTY_CONFIG_MAP_A, conditions, engine_for, parent

REFERENCE = """references:
  - {id: settings, apiVersion: v1, kind: ConfigMap, name: "'settings'"}
"""
RULE = """status:
  conditions:
    - {type: Configured, status: "spec.value is defined"}
"""
CASES: dict[str, tuple[str, str, dict[str, Any]]] = {
    # outcome: (template, more of kind.yaml, the child name whose apply fails -> error)
    "applied": (EMPTY_CONFIG_MAP_A, RULE, {}),
    "render failed": (CONFIG_MAP_A + "data:\n  value: {{ spec.missing }}\n", RULE, {}),
    "reference missing": (EMPTY_CONFIG_MAP_A, RULE + REFERENCE, {}),
    "child refused": (EMPTY_CONFIG_MAP_A, RULE, {"w-a": errors.ApiError(422, "Invalid: data: bad")}),
    "apply failed": (EMPTY_CONFIG_MAP_A, RULE, {"w-a": errors.ApiError(500, "etcdserver: timeout")}),
}
SET = {"Ready", "TemplatesRendered", "ChildrenApplied", "ChildrenReady", "Configured"}
BESIDE = {"Reconciling", "Stalled"}  # kstatus's pair, said only while the parent is not Ready


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_each_outcome_writes_one_status_with_every_condition_of_the_set(tmp_path: Path, case: str) -> None:
    template, extra, failing = CASES[case]
    fake = FakeKube()
    parent(fake, value="x")
    fake.fail_apply.update(failing)
    with engine_for(fake, tmp_path, template, extra) as controller:
        with contextlib.suppress(Exception):  # each outcome raises what it raises; the status is the test
            controller.reconcile(Key("ns", "w"))
        writes = [c for c in fake.calls if c[0] == "STATUS"]
        said = set(conditions(fake))
    assert writes == [("STATUS", "Widget ns/w")]
    assert said - BESIDE == SET, f"{case}: {sorted(said)}"


def test_the_status_is_written_from_one_place_in_the_reconcile() -> None:
    source = (Path(__file__).parents[2] / "engine/runtime/reconciling/reconcile/controller.py").read_text()
    assert source.count("self._write_status_then_delete_when_done(") == 1
