"""A partial cannot read ``children.<id>``: the read is what makes a template wait for another, and
the templates that include the partial would not wait.  The kind does not load, and the error is at
the partial's line and says to read the child in the template and pass it on."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from engine.core.templating import rendering
from tests.unit import _kinds

TEMPLATE = (
    "{% set db = children.db %}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n"
    "{% include '_data.yaml' %}\n"
)
DB = "apiVersion: v1\nkind: Service\nmetadata:\n  name: db\n"


def _folder(tmp_path: Path, partial: str) -> Path:
    folder = _kinds.kind_folder(tmp_path, template=TEMPLATE)
    (folder / "db.yaml").write_text(DB)
    (folder / "_data.yaml").write_text(partial)
    return folder


def test_a_partial_reading_children_of_a_template_does_not_load(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "  a: b\n  ip: '{{ children.db.spec.clusterIP }}'\n")

    with pytest.raises(KindError) as caught:
        kinds.load_kind(folder)

    assert (caught.value.file, caught.value.line) == (str(folder / "_data.yaml"), 2)
    assert "a partial cannot read a template's child" in caught.value.message
    assert "{% set db = children['db'] %}" in caught.value.message


def test_a_partial_reads_what_its_template_read_for_it(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "  ip: '{{ db.spec.clusterIP }}'\n")
    observed = [
        {
            **_kinds.parent(),
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "db", "namespace": "ns"},
            "spec": {"clusterIP": "10.0.0.7"},
        }
    ]

    children = rendering.render(kinds.load_kind(folder), _kinds.parent(), observed)

    assert [c["data"] for c in children if c["kind"] == "ConfigMap"] == [{"ip": "10.0.0.7"}]
