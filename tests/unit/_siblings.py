"""Kinds of a few children that refer to each other, for the lint tests of ``linting.relations``."""

from __future__ import annotations

from pathlib import Path

from engine.core.offline.linting import Finding
from engine.core.offline.linting.relations import RELATIONS
from engine.tools import linter
from tests.unit._lintkinds import kind_folder


def deployment(*, selector: str = "app: web", labels: str = "app: web", pod: str = "") -> str:
    """A Deployment named ``{{ name }}`` whose selector's matchLabels are ``selector``, its pod labels
    ``labels``, and ``pod`` added to its pod spec (each line already indented by six)."""
    return (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: '{{ name }}'\nspec:\n"
        f"  selector:\n    matchLabels:\n      {selector}\n"
        f"  template:\n    metadata:\n      labels:\n        {labels}\n"
        "    spec:\n      containers:\n        - name: web\n          image: nginx\n"
        "          ports:\n            - {name: http, containerPort: 8080}\n" + pod
    )


def service(*, selector: str = "app: web", target: str = "http", name: str = "'{{ name }}'") -> str:
    return (
        f"apiVersion: v1\nkind: Service\nmetadata:\n  name: {name}\nspec:\n"
        f"  selector:\n    {selector}\n  ports:\n    - {{name: web, port: 80, targetPort: {target}}}\n"
    )


def lint_kind(root: Path, templates: dict[str, str]) -> tuple[Path, list[Finding]]:
    """The kind folder of ``templates`` in ``root``, and what lint finds between its children."""
    folder = kind_folder(root, templates)
    return folder, [f for f in linter.lint([folder]) if f.check == RELATIONS]


def placed(folder: Path, findings: list[Finding]) -> list[tuple[str, int | None, str]]:
    """Each finding as (template file name, line, severity)."""
    return [(Path(f.file).relative_to(folder).as_posix(), f.line, f.severity) for f in findings]
