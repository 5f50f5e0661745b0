"""A status rule reading ``children.<id>`` (or ``children['<id>']``) of no template is a typo,
refused when the kind loads at the rule's line; kinds (``children.Deployment``) are not ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds


def _write(tmp_path: Path, rule: str) -> Path:
    (tmp_path / "kind.yaml").write_text(
        _kinds.KIND_YAML + f"templates: [redis-leader.yaml]\nstatus:\n  fields:\n    host: {rule!r}\n"
    )
    (tmp_path / "redis-leader.yaml").write_text("x: 1\n")
    return tmp_path


@pytest.mark.parametrize("rule", ["children.frontend.spec", "children['redis-folower'].spec"])
def test_an_unknown_id_is_refused_at_the_rule(tmp_path: Path, rule: str) -> None:
    with pytest.raises(KindError, match="no template has the id") as caught:
        kinds.load_kind(_write(tmp_path, rule))
    assert (caught.value.line, caught.value.field) == (9, "status.fields.host")


@pytest.mark.parametrize(
    "rule",
    [
        "children['redis-leader'].spec.clusterIP",
        "children.Service[name].spec.clusterIP",
        "children.items() | list | length",
    ],
)
def test_known_ids_kinds_and_mapping_methods_load(tmp_path: Path, rule: str) -> None:
    kind = kinds.load_kind(_write(tmp_path, rule))
    assert kind.fields[0].value.text == rule
