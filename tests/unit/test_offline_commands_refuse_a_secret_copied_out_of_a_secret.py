"""``stencil render`` and ``stencil lint`` refuse, offline, a template that copies a Secret of the
kind's ``tests/fixtures.yaml`` into a ConfigMap: at the template's file and line, naming the field,
never quoting the value."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools import cli
from tests.unit import _lintkinds

REFERENCES = """templates: [cm.yaml]
references:
  - {id: db, apiVersion: v1, kind: Secret, name: "'db'"}
"""
TEMPLATE = _lintkinds.configmap('  password: "{{ references.db.data.password | b64decode }}"\n')
DB = "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\ndata: {password: aHVudGVyMi1zZWNyZXQ=}\n"


def folder(tmp_path: Path) -> Path:
    kind = _lintkinds.kind_folder(tmp_path, {"cm.yaml": TEMPLATE}, kind_yaml_extra=REFERENCES)
    (kind / "tests").mkdir()
    (kind / "tests" / "fixtures.yaml").write_text(DB)
    return kind


def run(*args: str | Path) -> tuple[int, str]:
    result = CliRunner().invoke(cli.main, [str(arg) for arg in args])
    return result.exit_code, result.stdout + result.stderr


def test_render_refuses_the_copy_at_the_templates_line(tmp_path: Path) -> None:
    kind = folder(tmp_path)
    code, said = run("render", kind, "-f", kind / "examples" / "small.yaml")
    assert code == 1
    assert "cm.yaml" in said and "data.password would hold a value read from a Secret" in said
    assert "hunter2-secret" not in said and "aHVudGVyMi1zZWNyZXQ=" not in said


def test_lint_says_it_offline(tmp_path: Path) -> None:
    kind = folder(tmp_path)
    code, said = run("lint", kind, "--crds", tmp_path / "crds")
    assert code != 0
    assert "cm.yaml" in said and "read from a Secret" in said
    assert "hunter2-secret" not in said
