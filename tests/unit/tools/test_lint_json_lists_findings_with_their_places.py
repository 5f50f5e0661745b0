"""`stencil lint --format json`: a list of findings with file, line, column, severity, check and message."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from engine.tools import linter
from engine.tools.cli import main
from tests.unit._lintkinds import configmap, kind_folder

TEMPLATE = configmap("  n: '{{ spec.replicsa | default(1) }}'\n{% if spec.image %}\n  a: b\n{% endif %}\n")


def test_lint_json_is_the_findings_as_a_list(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE}, examples={})

    result = CliRunner().invoke(main, ["lint", "--format", "json", str(folder)])

    listed = json.loads(result.stdout)
    assert listed == [f.as_json() for f in linter.lint([folder])]
    assert {"error", "warning"} <= {item["severity"] for item in listed}
    for item in listed:
        assert set(item) == {"file", "line", "column", "severity", "check", "message"}
