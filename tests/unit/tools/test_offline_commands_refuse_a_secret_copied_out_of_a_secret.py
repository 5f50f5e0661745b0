"""``stencil render`` and ``stencil lint`` refuse, offline, a template that copies a Secret of the
kind's ``tests/fixtures.yaml`` into a ConfigMap: at the template's file and line, naming the field,
never quoting the value."""

from __future__ import annotations

from pathlib import Path

import yaml
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


STATUS = """status:
  fields:
    leaked: references.db.data.password
    name: references.db.metadata.name
  conditions:
    - type: Told
      status: "true"
      message: "'password is ' ~ references.db.data.password"
"""


def test_a_status_field_or_condition_message_holding_it_is_withheld(tmp_path: Path) -> None:
    kind = _lintkinds.kind_folder(
        tmp_path, {"cm.yaml": _lintkinds.configmap("  a: b\n")}, kind_yaml_extra=REFERENCES + STATUS
    )
    (kind / "tests").mkdir()
    (kind / "tests" / "fixtures.yaml").write_text(DB)
    code, said = run("render", kind, "-f", kind / "examples" / "small.yaml", "--status")
    assert code == 0, said
    assert "hunter2-secret" not in said and "aHVudGVyMi1zZWNyZXQ=" not in said
    [parent] = yaml.safe_load_all(said[said.index("apiVersion") :])
    assert "leaked" not in parent["status"]
    assert parent["status"]["name"] == "db"
    told = next(c for c in parent["status"]["conditions"] if c["type"] == "Told")
    assert told["reason"] == "SecretInStatus"
    assert "kind.yaml" in told["message"] and "read from a Secret" in told["message"]
