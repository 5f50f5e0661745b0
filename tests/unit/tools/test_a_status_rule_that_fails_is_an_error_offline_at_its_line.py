"""A status rule that raises is left out live (its condition Unknown, its field missing), which
is right for a parent and wrong for an author: ``stencil render --status`` exits non-zero and
``stencil lint`` reports an error, both at the rule's file and line.  They used to exit 0, the
failure a log line on stderr."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from engine.tools import cli
from tests.unit import _lintkinds

RULES = """templates: [cm.yaml]
status:
  fields:
    fine: spec.image
    broken: (spec.image | int) + [1]
  conditions:
    - type: Odd
      status: "spec.image ~ '!'"
"""


def folder(tmp_path: Path) -> Path:
    kind = _lintkinds.kind_folder(
        tmp_path, {"cm.yaml": _lintkinds.configmap("  a: b\n")}, kind_yaml_extra=RULES
    )
    return kind


def lines(kind: Path) -> tuple[int, int]:
    text = (kind / "kind.yaml").read_text()
    return _lintkinds.line_of(text, "broken:"), _lintkinds.line_of(text, 'status: "spec.image')


def test_render_status_exits_non_zero_naming_each_failing_rule(tmp_path: Path) -> None:
    kind = folder(tmp_path)
    broken, odd = lines(kind)
    result = CliRunner().invoke(
        cli.main, ["render", str(kind), "-f", str(kind / "examples" / "small.yaml"), "--status"]
    )
    assert result.exit_code == 1
    said = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert sorted(said) == sorted(
        [
            f"error: {kind}/kind.yaml:{odd}: status.conditions[0].status: the rule of condition Odd gave "
            "'nginx!', not true, false or nothing",
            f"error: {kind}/kind.yaml:{broken}: status.fields.broken: TypeError: unsupported operand type(s) "
            "for +: 'int' and 'list' (in expression '(spec.image | int) + [1]')",
        ]
    )
    assert "fine: nginx" in result.stdout  # the status is shown all the same


def test_lint_reports_each_failing_rule_at_its_line(tmp_path: Path) -> None:
    kind = folder(tmp_path)
    broken, odd = lines(kind)
    result = CliRunner().invoke(cli.main, ["lint", str(kind), "--crds", str(tmp_path / "crds")])
    assert result.exit_code == 1
    errors = [line for line in result.stdout.splitlines() if ": error: " in line]
    assert any(
        line.startswith(f"{kind}/kind.yaml:{broken}: error: status.fields.broken: TypeError")
        for line in errors
    )
    assert any(
        line.startswith(f"{kind}/kind.yaml:{odd}: error: ") and "gave 'nginx!'" in line for line in errors
    )
    assert all("(for the example at " in line for line in errors)
