"""A HorizontalPodAutoscaler whose scaleTargetRef names no workload the kind renders points nowhere: an
error at the name when the kind renders others of that kind, a warning when it renders none."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import line_of
from tests.unit._siblings import deployment, lint_kind, placed


def hpa(kind: str, name: str) -> str:
    return (
        "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: '{{ name }}'\nspec:\n"
        f"  scaleTargetRef:\n    apiVersion: apps/v1\n    kind: {kind}\n    name: {name}\n"
        "  minReplicas: 1\n  maxReplicas: 3\n"
    )


def test_a_target_the_kind_does_not_render_is_an_error_at_its_name(tmp_path: Path) -> None:
    template = hpa("Deployment", "'{{ name }}-api'")

    folder, findings = lint_kind(tmp_path, {"deployment.yaml": deployment(), "hpa.yaml": template})

    assert placed(folder, findings) == [("hpa.yaml", line_of(template, "-api"), "error")]
    assert "scaleTargetRef names Deployment small-api, which the kind does not render" in findings[0].message


def test_a_target_of_a_kind_it_renders_none_of_is_a_warning(tmp_path: Path) -> None:
    folder, findings = lint_kind(
        tmp_path, {"deployment.yaml": deployment(), "hpa.yaml": hpa("StatefulSet", "db")}
    )

    assert [severity for *_, severity in placed(folder, findings)] == ["warning"]


def test_a_target_the_kind_renders_is_fine(tmp_path: Path) -> None:
    _, findings = lint_kind(
        tmp_path, {"deployment.yaml": deployment(), "hpa.yaml": hpa("Deployment", "'{{ name }}'")}
    )

    assert findings == []
