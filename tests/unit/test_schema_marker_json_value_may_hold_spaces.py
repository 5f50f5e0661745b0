"""A marker whose value is a JSON object or list runs to where that JSON closes, spaces and all,
as kro's SimpleSchema writes it (``default={"k8s-app": "kube-dns"}``); the markers after it are
read as usual."""

from __future__ import annotations

from pathlib import Path

from tests.unit import _schema_kinds


def field(tmp_path: Path, text: str) -> dict[str, object]:
    generated = _schema_kinds.crd(tmp_path, f"schema:\n  spec:\n    field: '{text}'\n")
    found: dict[str, object] = _schema_kinds.spec_of(generated)["properties"]["field"]
    return found


def test_an_object_default_with_spaces_is_one_value(tmp_path: Path) -> None:
    schema = field(tmp_path, 'map[string]string | default={"k8s-app": "kube-dns"} minProperties=1')
    assert schema["default"] == {"k8s-app": "kube-dns"}
    assert schema["minProperties"] == 1


def test_a_list_default_with_spaces_is_one_value(tmp_path: Path) -> None:
    schema = field(tmp_path, '[]string | default=["a", "b c"]')
    assert schema["default"] == ["a", "b c"]
