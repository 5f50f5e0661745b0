"""`stencil render --status` on a parent whose status rule is ``spec.b ** spec.e`` with
``e = 10**8`` (a power Python would spend minutes on, holding the interpreter lock): the rule's
condition says, at once, that the rule went over its budget, naming kind.yaml and the rule's
line, and the command says it as an error and exits 1.  Run as a real process with a deadline,
so an engine that computed the power fails the test instead of hanging it; what the process cost
is its CPU time, which other work beside it does not stretch as it does the wall clock."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import yaml

from tests._deadlines import WAIT, scaled
from tests.unit import _crs, _lintkinds

KIND_YAML = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: example.com/v1
  kind: Power
status:
  conditions:
    - type: Huge
      status: "spec.b ** spec.e > 0"
"""
RULE_LINE = 9
SPEC = {"type": "object", "properties": {"b": {"type": "integer"}, "e": {"type": "integer"}}}
CRD = _crs.definition(
    "example.com",
    {"kind": "Power", "plural": "powers", "singular": "power"},
    {"type": "object", "properties": {"spec": SPEC, "status": _crs.PRESERVED}},
)
PARENT = {
    "apiVersion": "example.com/v1",
    "kind": "Power",
    "metadata": {"name": "stall", "namespace": "tenant-a"},
    "spec": {"b": 3, "e": 10**8},
}


def test_a_stalling_status_rule_fails_its_parent_in_one_line_within_a_second(tmp_path: Path) -> None:
    folder = tmp_path / "templates" / "power"
    (folder / "examples").mkdir(parents=True)
    (folder / "kind.yaml").write_text(KIND_YAML)
    assert "spec.b ** spec.e" in KIND_YAML.splitlines()[RULE_LINE - 1]
    (folder / "cm.yaml").write_text(_lintkinds.configmap("  a: 'b'\n"))
    (folder / "examples" / "stall.yaml").write_text(yaml.safe_dump(PARENT))
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "power.yaml").write_text(yaml.safe_dump(CRD))

    def children_cpu() -> float:
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        return used.ru_utime + used.ru_stime

    started = children_cpu()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine.tools.cli",
            "render",
            str(folder),
            "-f",
            str(folder / "examples" / "stall.yaml"),
            "--status",
        ],
        capture_output=True,
        text=True,
        timeout=scaled(WAIT),
        check=False,
    )
    took = children_cpu() - started

    # The status is shown, and the rule that failed is an error at its line: the command fails.
    assert done.returncode == 1, done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("error: ")]
    assert len(said) == 1 and said[0].startswith(f"error: {folder / 'kind.yaml'}:{RULE_LINE}: "), done.stderr
    status = yaml.safe_load(done.stdout)["status"]
    huge = next(c for c in status["conditions"] if c["type"] == "Huge")
    assert huge["status"] == "Unknown"
    assert huge["reason"] == "OverBudget"
    assert huge["message"].startswith(f"{folder / 'kind.yaml'}:{RULE_LINE}: "), huge["message"]
    assert "`**`" in huge["message"]
    assert len(huge["message"].splitlines()) == 1
    # The whole command, interpreter start included; the rule itself takes well under a second.
    assert took < 5, f"stencil render --status took {took:.1f}s of CPU"
