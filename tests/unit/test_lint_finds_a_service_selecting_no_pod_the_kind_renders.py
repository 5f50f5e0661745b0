"""A Service whose selector matches no pod template the kind renders points nowhere: an error at its
selector, naming the labels the kind's pod templates do have."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import line_of
from tests.unit._siblings import deployment, lint_kind, placed, service


def test_a_service_selecting_no_rendered_pod_is_an_error_at_its_selector(tmp_path: Path) -> None:
    template = service(selector="app: frontend")

    folder, findings = lint_kind(tmp_path, {"deployment.yaml": deployment(), "service.yaml": template})

    assert placed(folder, findings) == [("service.yaml", line_of(template, "selector:"), "error")]
    assert "app=frontend matches no pod template the kind renders (Deployment small: app=web)" in (
        findings[0].message
    )


def test_a_service_of_a_kind_rendering_no_pods_is_a_warning(tmp_path: Path) -> None:
    folder, findings = lint_kind(tmp_path, {"service.yaml": service()})

    assert [severity for *_, severity in placed(folder, findings)] == ["warning"]
