"""``stencil rbac`` and ``stencil dev`` run in a project whose kinds write their CRDs from
``schema:``, with no ``crds/`` folder: the missing default folder holds no CRD files.  A
``--crds`` folder named on the command line that does not exist is still an error."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from engine.localcluster import plane
from engine.tools import cli
from tests.unit import _schema_kinds


class _Started(Exception):
    """Raised in place of starting a control plane: the options were read."""


def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tmp_path`` as the working folder of a project with only ``templates/shop``."""
    (tmp_path / "templates").mkdir()
    _schema_kinds.folder(tmp_path / "templates", "schema:\n  spec:\n    n: integer\n")
    monkeypatch.chdir(tmp_path)


def test_rbac_grants_the_schema_kinds_parent_without_a_crds_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path, monkeypatch)

    result = CliRunner().invoke(cli.main, ["rbac"])

    assert result.exit_code == 0, result.output
    rules = [rule for doc in yaml.safe_load_all(result.output) for rule in doc.get("rules", [])]
    assert any("shops" in rule.get("resources", []) for rule in rules)


def test_dev_starts_without_a_crds_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project(tmp_path, monkeypatch)

    def started(*_args: object, **_kwargs: object) -> None:
        raise _Started

    monkeypatch.setattr(plane, "LocalCluster", started)
    result = CliRunner().invoke(cli.main, ["--debug", "dev"])

    assert isinstance(result.exception, _Started), result.output


def test_a_crds_folder_given_that_does_not_exist_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project(tmp_path, monkeypatch)

    result = CliRunner().invoke(cli.main, ["rbac", "--crds", "missing"])

    assert result.exit_code == 2
    assert "'missing' does not exist" in result.output
