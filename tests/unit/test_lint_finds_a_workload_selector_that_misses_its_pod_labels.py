"""A workload whose selector does not select its own pod template: the API server refuses it, so lint
says so at the selector's line."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import line_of
from tests.unit._siblings import deployment, lint_kind, placed


def test_a_selector_label_the_pod_template_lacks_is_an_error_at_its_line(tmp_path: Path) -> None:
    template = deployment(selector="app: web", labels="app: webapp")

    folder, findings = lint_kind(tmp_path, {"deployment.yaml": template})

    assert placed(folder, findings) == [("deployment.yaml", line_of(template, "matchLabels") + 1, "error")]
    assert "app=web does not select the pod template's labels (app=webapp)" in findings[0].message


def test_a_selector_that_selects_its_pod_template_is_fine(tmp_path: Path) -> None:
    _, findings = lint_kind(tmp_path, {"deployment.yaml": deployment()})

    assert findings == []
