"""A kind.yaml that breaks the schema fails with the file, the line and the field at fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds

HEAD = _kinds.KIND_YAML


def load(tmp_path: Path, text: str) -> kinds.Kind:
    (tmp_path / "kind.yaml").write_text(text)
    return kinds.load_kind(tmp_path)


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        (HEAD.replace("kind: StencilKind", "kind: Kind"), 2, "kind", "must be 'StencilKind'"),
        (HEAD + "colour: red\n", 6, "colour", "unknown field 'colour'"),
        (HEAD.replace("  kind: Web\n", ""), 3, "parent", "missing required field 'kind'"),
        (HEAD.replace("kind: Web", "kind: web"), 5, "parent.kind", "'web' is not valid"),
        (HEAD + "placement:\n  rbac: maybe\n", 7, "placement.rbac", "must be true or false, not a string"),
        (
            HEAD + "placement:\n  namespaces: [a, Bad_NS]\n",
            7,
            "placement.namespaces[1]",
            "'Bad_NS' is not valid",
        ),
        (HEAD + "templates: [a.yaml, a.yaml]\n", 6, "templates[1]", "listed twice"),
        (
            HEAD + "status:\n  conditions:\n    - type: Ready\n      status: 'True'\n",
            8,
            "status.conditions[0].type",
            "reserved",
        ),
        (
            HEAD + "status:\n  conditions:\n    - type: ChildrenReady\n      status: 'True'\n",
            8,
            "status.conditions[0].type",
            "reserved",
        ),
        (
            HEAD + "status:\n  conditions:\n    - type: Up\n",
            8,
            "status.conditions[0]",
            "missing required field 'status'",
        ),
        (HEAD + "status:\n  fields:\n    conditions: spec.x\n", 8, "status.fields.conditions", "reserved"),
    ],
)
def test_a_schema_violation_is_located(
    tmp_path: Path, text: str, line: int, field: str, message: str
) -> None:
    with pytest.raises(KindError, match=message) as caught:
        load(tmp_path, text)
    assert (caught.value.file, caught.value.line, caught.value.field) == (
        str(tmp_path / "kind.yaml"),
        line,
        field,
    )


def test_a_status_expression_that_does_not_compile_is_located(tmp_path: Path) -> None:
    text = HEAD + "status:\n  fields:\n    port: \"child('Service', name).spec.ports[0\"\n"
    with pytest.raises(KindError) as caught:
        load(tmp_path, text)
    assert (caught.value.line, caught.value.field) == (8, "status.fields.port")


def test_a_listed_template_that_does_not_exist_is_located(tmp_path: Path) -> None:
    with pytest.raises(KindError, match=r"no template file 'missing\.yaml'") as caught:
        load(tmp_path, HEAD + "templates:\n  - missing.yaml\n")
    assert (caught.value.line, caught.value.field) == (7, "templates[0]")


def test_a_missing_kind_yaml_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(KindError) as caught:
        kinds.load_kind(tmp_path)
    assert caught.value.file == str(tmp_path / "kind.yaml")
