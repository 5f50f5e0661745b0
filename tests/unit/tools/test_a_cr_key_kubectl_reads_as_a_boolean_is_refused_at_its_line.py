"""An unquoted key ``y``, ``Y``, ``n`` or ``N`` in a CR is refused at its line, saying to quote it: kubectl
reads YAML 1.1 with go-yaml v2, which makes those four booleans and sends ``spec: {n: 3}`` as
``{"false": 3}``, while PyYAML reads the letter.  ``stencil render`` and ``stencil test`` refuse it (what
they read would not be what the API server stores); a quoted key, and kind.yaml, keep the letter."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from engine.core.model.errors import StencilError
from engine.core.model.language import documents
from engine.tools import cli, manifests
from tests.unit import _kinds


def cr(spec_key: str) -> str:
    return _kinds.SEED_CR.replace("spec:\n", f"spec:\n  {spec_key}: 3\n")


def test_pyyaml_reads_the_letter_where_kubectl_reads_a_boolean() -> None:
    # Why the refusal exists: yes/no/on/off are booleans to both readers, y/Y/n/N to kubectl alone.
    assert yaml.safe_load("{n: 1, Y: 2, no: 3}") == {"n": 1, "Y": 2, False: 3}


@pytest.mark.parametrize(("key", "sent"), [("n", "false"), ("N", "false"), ("y", "true"), ("Y", "true")])
def test_stencil_render_refuses_the_key_at_its_line(tmp_path: Path, key: str, sent: str) -> None:
    (tmp_path / "cr.yaml").write_text(cr(key))

    arguments = ["render", str(_kinds.SEED_FOLDER), "-f", str(tmp_path / "cr.yaml")]
    result = CliRunner().invoke(cli.main, arguments)

    assert result.exit_code == 1
    assert f"{tmp_path / 'cr.yaml'}:6: spec.{key}: kubectl reads the unquoted key {key} " in result.output
    assert f'sends the key "{sent}"; quote it ("{key}")' in result.output


def test_a_key_deep_in_a_list_is_refused_with_its_path(tmp_path: Path) -> None:
    (tmp_path / "cr.yaml").write_text("items:\n- metadata:\n    labels:\n      a: b\n      y: c\n")

    with pytest.raises(StencilError) as caught:
        documents.read_applied(tmp_path / "cr.yaml")

    assert (caught.value.line, caught.value.field) == (5, "items[0].metadata.labels.y")


def test_stencil_test_refuses_it_in_an_example(tmp_path: Path) -> None:
    (tmp_path / "example.yaml").write_text(cr("n"))

    with pytest.raises(StencilError, match=r"spec\.n: kubectl reads the unquoted key n "):
        manifests.read([tmp_path / "example.yaml"])


@pytest.mark.parametrize(("key", "read"), [('"n"', "n"), ("'Y'", "Y"), ("no", "false"), ("name", "name")])
def test_a_quoted_key_or_one_both_readers_agree_on_is_read(tmp_path: Path, key: str, read: str) -> None:
    (tmp_path / "cr.yaml").write_text(cr(key))

    [document] = documents.read_applied(tmp_path / "cr.yaml")

    assert document.data["spec"][read] == 3


def test_kind_yaml_keeps_the_letter_since_kubectl_never_reads_it(tmp_path: Path) -> None:
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + "schema:\n  spec:\n    n: integer\n")

    assert documents.Document.read(tmp_path / "kind.yaml").data["schema"]["spec"] == {"n": "integer"}
