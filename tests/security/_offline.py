"""A kind folder of one template and one example, rendered by the real `stencil render` command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from engine.tools import cli
from tests.unit import _lintkinds


def render(root: Path, template: str, spec: dict[str, Any]) -> tuple[Path, Result]:
    """The template's file, and what `stencil render` says for one Web whose spec is ``spec``."""
    example = {"apiVersion": _lintkinds.API_VERSION, "kind": _lintkinds.KIND, "metadata": {"name": "small"}}
    folder = _lintkinds.kind_folder(
        root, {"child.yaml": template}, examples={"small.yaml": yaml.safe_dump({**example, "spec": spec})}
    )
    example_file = folder / "examples" / "small.yaml"
    result = CliRunner().invoke(cli.main, ["render", str(folder), "-f", str(example_file)])
    return folder / "child.yaml", result
