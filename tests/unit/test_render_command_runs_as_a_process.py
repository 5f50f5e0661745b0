"""`stencil render` run as a real process: YAML on stdout, the error and a non-zero exit on bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "templates" / "deploywebservice"


def stencil(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-c", "from engine.tools.cli import main; main()", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)


def test_render_prints_a_yaml_stream_and_exits_zero() -> None:
    done = stencil("render", str(FOLDER), "-f", str(FOLDER / "examples" / "nginx.yaml"))
    assert done.returncode == 0, done.stderr
    assert [doc["kind"] for doc in yaml.safe_load_all(done.stdout)] == ["Deployment", "Service"]
    assert done.stderr == ""


def test_bad_input_exits_non_zero_with_the_location_on_stderr(tmp_path: Path) -> None:
    cr = tmp_path / "cr.yaml"
    cr.write_text("apiVersion: operator.wujiuye.com/v1beta1\nkind: DeployWebService\nmetadata:\n  name: x\n")
    done = stencil("render", str(FOLDER), "-f", str(cr))
    assert done.returncode != 0
    assert done.stdout == ""
    assert f"{cr}:1: missing required field 'spec'" in done.stderr
