"""The engine's own condition types (``status.BUILTIN_CONDITIONS``, Reconciling and Stalled among
them) are refused as a kind's own by the published schema, each at its line."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from engine.core.decisions import progress, status
from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds


def test_the_schema_reserves_exactly_the_engines_conditions() -> None:
    text = resources.files("engine").joinpath("schemas", "kind.schema.json").read_text(encoding="utf-8")
    rule = json.loads(text)["properties"]["status"]["properties"]["conditions"]["items"]["properties"]["type"]

    assert set(rule["not"]["enum"]) == set(status.BUILTIN_CONDITIONS)
    assert set(progress.TYPES) <= set(status.BUILTIN_CONDITIONS)


@pytest.mark.parametrize("type_", status.BUILTIN_CONDITIONS)
def test_a_rule_for_an_engines_condition_is_refused_at_its_type(tmp_path: Path, type_: str) -> None:
    text = _kinds.KIND_YAML + f"status:\n  conditions:\n    - type: {type_}\n      status: 'True'\n"
    (tmp_path / kinds.KIND_FILE).write_text(text)

    with pytest.raises(KindError, match="reserved") as caught:
        kinds.load_kind(tmp_path)

    assert (caught.value.line, caught.value.field) == (8, "status.conditions[0].type")
