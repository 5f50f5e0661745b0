"""``stencil render --observed`` in tmp_path, and a kind whose template reads a ConfigMap through a
reference, for the tests of what --observed gives the templates."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner, Result

from engine.tools import cli
from tests.unit import _lintkinds

REFERENCES = """\
references:
  - id: config
    apiVersion: v1
    kind: ConfigMap
    name: "name ~ '-config'"
"""
ECHO = _lintkinds.configmap('  echo: "{{ references.config.data.ECHO }}"\n')


def echo_kind(root: Path) -> Path:
    """A kind folder whose one ConfigMap echoes ``data.ECHO`` of the ConfigMap ``<name>-config``."""
    return _lintkinds.kind_folder(root, {"echo.yaml": ECHO}, kind_yaml_extra=REFERENCES)


def render(tmp_path: Path, folder: Path, cr: str, observed: str, *extra: str) -> Result:
    """``stencil render folder -f <cr> --observed <observed> extra...``, both files written in tmp_path."""
    (tmp_path / "cr.yaml").write_text(cr)
    (tmp_path / "observed.yaml").write_text(observed)
    files = ["-f", str(tmp_path / "cr.yaml"), "--observed", str(tmp_path / "observed.yaml")]
    return CliRunner().invoke(cli.main, ["render", str(folder), *files, *extra])
