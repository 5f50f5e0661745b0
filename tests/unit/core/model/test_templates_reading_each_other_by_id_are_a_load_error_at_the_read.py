"""Templates that wait for each other through a ``children.<id>`` read (alone or with ``after:``)
are a load error at the template line of the read, as is a read of an id no template has."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds

SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  x: '{{ children.cm.data }}'\n"


def load_error(root: Path, configmap: str, kind_yaml_extra: str = "") -> KindError:
    directory = _kinds.kind_folder(root, kind_yaml_extra, template=_kinds.configmap(configmap))
    (directory / "svc.yaml").write_text(SERVICE)
    with pytest.raises(KindError) as caught:
        kinds.load_kind(directory)
    return caught.value


def test_two_templates_reading_each_other_fail_at_the_first_read(tmp_path: Path) -> None:
    error = load_error(tmp_path, "  a: b\n  ip: '{{ children.svc.spec.clusterIP }}'\n")

    assert (Path(error.file or "").name, error.line, error.field) == ("cm.yaml", 7, "children.svc")
    assert error.message == "templates wait for each other: cm reads children.svc, svc reads children.cm"


def test_a_cycle_through_after_and_a_read_fails_at_the_read(tmp_path: Path) -> None:
    error = load_error(tmp_path, "  a: b\n", "templates:\n  - {file: cm.yaml, after: [svc]}\n  - svc.yaml\n")

    assert (Path(error.file or "").name, error.line, error.field) == ("svc.yaml", 6, "children.cm")
    assert error.message == "templates wait for each other: cm waits for svc, svc reads children.cm"


def test_a_read_of_an_id_no_template_has_fails_at_its_line(tmp_path: Path) -> None:
    directory = _kinds.kind_folder(tmp_path, template=_kinds.configmap("  a: '{{ children.sevrice }}'\n"))
    with pytest.raises(KindError) as caught:
        kinds.load_kind(directory)

    assert (Path(caught.value.file or "").name, caught.value.line) == ("cm.yaml", 6)
    assert caught.value.message == "children.sevrice: no template has the id 'sevrice' (ids: cm)"
