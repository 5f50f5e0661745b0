"""Coverage: an {% else %} that no example reaches is a warning at its line; taken branches are not."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of

TEMPLATE = configmap(
    "{% if spec.image is defined %}\n"
    "  image: '{{ spec.image }}'\n"
    "{% else %}\n"
    "  image: none\n"
    "{% endif %}\n"
    "{% for port in spec.ports | default([]) %}\n"
    "  port-{{ loop.index }}: '{{ port.port }}'\n"
    "{% endfor %}\n"
)
WITH_PORTS = (
    "apiVersion: example.com/v1\nkind: Web\nmetadata:\n  name: p\nspec:\n  image: x\n  ports: [{port: 80}]\n"
)


def test_lint_warns_of_the_untaken_else_only(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE}, examples={"p.yaml": WITH_PORTS})

    findings = linter.lint([folder])

    assert [(f.file, f.line, f.severity, f.check) for f in findings] == [
        (str(folder / "cm.yaml"), line_of(TEMPLATE, "image: none"), "warning", "coverage")
    ]
    assert "else" in findings[0].message


def test_lint_warns_of_a_loop_body_no_example_runs(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE})  # the default example has no ports

    findings = linter.lint([folder])

    assert sorted((f.line, f.check) for f in findings) == sorted(
        [(line_of(TEMPLATE, "image: none"), "coverage"), (line_of(TEMPLATE, "{% for"), "coverage")]
    )
