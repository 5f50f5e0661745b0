"""Every command maps a failure to one line and a non-zero exit; a traceback only with --debug."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.core.offline import rbac
from engine.tools.cli import main

KIND = Path("templates/network")
EXAMPLE = KIND / "examples" / "example-network.yaml"


def test_diff_without_a_kubeconfig_says_so_in_one_line(tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "missing")}
    result = CliRunner().invoke(main, ["diff", str(KIND), "-f", str(EXAMPLE)], env=env)
    assert result.exit_code == 2
    assert "cannot use the kubeconfig" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_rbac_with_a_crd_file_that_is_not_yaml_says_which_file(tmp_path: Path) -> None:
    crds = tmp_path / "crds"
    crds.mkdir()
    (crds / "broken.yaml").write_text("kind: [unclosed\n")
    result = CliRunner().invoke(main, ["rbac", "--crds", str(crds)])
    assert result.exit_code == 1
    assert "broken.yaml" in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def boom(*args: object, **kwargs: object) -> None:
    raise RuntimeError("boom")


def test_an_unexpected_failure_is_one_line_naming_its_type(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rbac, "documents", boom)
    result = CliRunner().invoke(main, ["rbac"])
    assert result.exit_code == 1
    assert result.output.strip() == "Error: RuntimeError: boom (run `stencil --debug ...` for the traceback)"


def test_debug_lets_the_exception_through(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rbac, "documents", boom)
    result = CliRunner().invoke(main, ["--debug", "rbac"])
    assert isinstance(result.exception, RuntimeError)
