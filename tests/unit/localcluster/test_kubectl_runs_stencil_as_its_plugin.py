"""``kubectl stencil ...`` runs the ``stencil`` commands: the package installs a ``kubectl-stencil``
command (pyproject's ``[project.scripts]``), which kubectl finds on PATH as its ``stencil`` plugin
and runs with the arguments after the plugin's name, and whose usage lines say ``kubectl stencil``.

The command is made here as pip's console-script wrapper makes it, from the entry point pyproject
names, and run by the real kubectl of the local control plane's binaries: no cluster is needed.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from engine.localcluster import binaries

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def kubectl() -> Path:
    return binaries.ensure(["kubectl"])["kubectl"]


@pytest.fixture
def path_with_plugin(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH holds only ``kubectl-stencil`` as pip would install it: one installed
    elsewhere on PATH (the project's own, installed by pip) would make kubectl warn of two plugins."""
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    module, function = scripts["kubectl-stencil"].split(":")
    command = tmp_path / "bin" / "kubectl-stencil"
    command.parent.mkdir()
    command.write_text(
        f"#!{sys.executable}\nimport sys\nfrom {module} import {function}\nsys.exit({function}())\n"
    )
    command.chmod(command.stat().st_mode | stat.S_IXUSR)
    return {
        **os.environ,
        "PATH": str(command.parent),
        "PYTHONPATH": str(ROOT),
        "KUBECONFIG": str(tmp_path / "no-kubeconfig"),
    }


def kubectl_says(kubectl: Path, env: dict[str, str], *args: str) -> str:
    done = subprocess.run([str(kubectl), *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_kubectl_lists_the_plugin_found_on_path(kubectl: Path, path_with_plugin: dict[str, str]) -> None:
    listed = kubectl_says(kubectl, path_with_plugin, "plugin", "list", "--name-only")
    assert "kubectl-stencil" in listed.split()


def test_kubectl_stencil_runs_the_stencil_commands_under_its_own_name(
    kubectl: Path, path_with_plugin: dict[str, str]
) -> None:
    group = kubectl_says(kubectl, path_with_plugin, "stencil", "--help")
    assert group.startswith("Usage: kubectl stencil [OPTIONS] COMMAND [ARGS]...")
    assert {"render", "lint", "run", "rbac"} <= {
        line.split()[0] for line in group.splitlines() if line[:2] == "  "
    }
    command = kubectl_says(kubectl, path_with_plugin, "stencil", "render", "--help")
    assert command.startswith("Usage: kubectl stencil render [OPTIONS]")
