"""``references:`` in kind.yaml load into ``Reference`` values; an entry with both or neither of
``name`` and ``selector``, an id used twice, and a status rule reading ``references.<id>`` of no
reference are each a KindError at kind.yaml's line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds

LIST_LINE = 6  # the line of `references:` after _kinds.KIND_YAML's five lines
CONFIG = "  - id: config\n    apiVersion: v1\n    kind: ConfigMap\n"


def _write(tmp_path: Path, more: str) -> None:
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + more)
    (tmp_path / "a.yaml").write_text("x: 1\n")


def _refused(tmp_path: Path, more: str) -> KindError:
    _write(tmp_path, more)
    with pytest.raises(KindError) as caught:
        kinds.load_kind(tmp_path)
    assert caught.value.file == str(tmp_path / "kind.yaml")
    return caught.value


def test_a_reference_by_name_and_one_by_selector_load(tmp_path: Path) -> None:
    _write(
        tmp_path,
        "references:\n" + CONFIG + "    name: spec.configName\n    namespace: spec.shared\n"
        "  - id: secrets\n    apiVersion: v1\n    kind: Secret\n    optional: true\n"
        "    selector: {matchLabels: {team: b, app: a}}\n"
        "status:\n  fields:\n    echo: references.config.data.ECHO\n",
    )
    config, secrets = kinds.load_kind(tmp_path).references
    assert (config.id, config.api_version, config.kind) == ("config", "v1", "ConfigMap")
    assert not config.optional
    assert config.name is not None and config.name.evaluate({"spec": {"configName": "c"}}) == "c"
    assert config.namespace is not None and config.namespace.text == "spec.shared"
    assert config.line == LIST_LINE + 1
    assert secrets.name is None and secrets.optional
    assert secrets.selector == (("app", "a"), ("team", "b"))


@pytest.mark.parametrize("which", ["", "    name: name\n    selector: {matchLabels: {a: b}}\n"])
def test_a_reference_gives_exactly_one_of_name_and_selector(tmp_path: Path, which: str) -> None:
    error = _refused(tmp_path, "references:\n" + CONFIG + which)
    assert (error.line, error.field) == (LIST_LINE + 1, "references[0]")
    assert "exactly one of name" in error.message


def test_a_reference_id_used_twice_is_refused(tmp_path: Path) -> None:
    twice = CONFIG + "    name: name\n"
    error = _refused(tmp_path, "references:\n" + twice + twice)
    assert (error.line, error.field) == (LIST_LINE + 5, "references[1].id")


def test_a_rule_reading_an_unknown_reference_is_refused_at_its_line(tmp_path: Path) -> None:
    error = _refused(
        tmp_path,
        "references:\n" + CONFIG + "    name: name\nstatus:\n  fields:\n    echo: references.confg.data\n",
    )
    assert (error.line, error.field) == (LIST_LINE + 7, "status.fields.echo")
    assert "no reference has the id 'confg' (ids: config)" in error.message


def test_a_name_expression_with_an_unknown_name_is_refused_at_its_line(tmp_path: Path) -> None:
    error = _refused(tmp_path, "references:\n" + CONFIG + "    name: sepc.configName\n")
    assert (error.line, error.field) == (LIST_LINE + 4, "references[0].name")
