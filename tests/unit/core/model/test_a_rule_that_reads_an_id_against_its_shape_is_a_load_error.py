"""A status rule that reads a collection as one child (a field of it, or a helper that takes one
child) or one child as a list (``| length``, ``| first``) is wrong for every count: a KindError at its
line, naming the id and what to do."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds

TEMPLATES = "templates:\n  - {file: workers.yaml, collection: true}\n  - db.yaml\n"
RULE_LINE = 11  # five lines of _kinds.KIND_YAML, three of TEMPLATES, then status, fields, x


def _load(tmp_path: Path, rule: str) -> kinds.Kind:
    status = f"status:\n  fields:\n    x: {rule!r}\n"
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + TEMPLATES + status)
    for name in ("workers.yaml", "db.yaml"):
        (tmp_path / name).write_text("x: 1\n")
    return kinds.load_kind(tmp_path)


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        ("children.workers.status.phase", "children.workers is a collection (a list"),
        ("children['workers']['status']", "it has no field 'status'"),
        ("condition_status(children.workers, 'Ready')", "condition_status() takes one child"),
        ("children.db | length", "children.db is one child, not a list"),
        ("children.db | map(attribute='kind') | list", "'| map' would read its top-level keys"),
        ("children.db | first", "children.db is one child"),
    ],
)
def test_reading_an_id_against_its_shape_is_refused_at_its_line(tmp_path: Path, rule: str, said: str) -> None:
    with pytest.raises(KindError) as caught:
        _load(tmp_path, rule)
    assert (caught.value.line, caught.value.field) == (RULE_LINE, "status.fields.x")
    assert said in caught.value.message


@pytest.mark.parametrize(
    "rule",
    [
        "children.workers | length",
        "children.workers[0].status.phase",
        "children.workers | selectattr('status.phase', 'eq', 'Running') | list",
        "children.db.status.readyReplicas",
        "condition_status(children.db, 'Available')",
    ],
)
def test_reading_an_id_in_its_shape_loads(tmp_path: Path, rule: str) -> None:
    assert _load(tmp_path, rule).fields[0].value.text == rule
