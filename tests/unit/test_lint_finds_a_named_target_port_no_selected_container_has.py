"""A Service's targetPort by name that no container of the pods it selects names is an error at the
targetPort's line."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import line_of
from tests.unit._siblings import deployment, lint_kind, placed, service


def test_a_target_port_name_no_selected_container_has_is_an_error(tmp_path: Path) -> None:
    template = service(target="https")

    folder, findings = lint_kind(tmp_path, {"deployment.yaml": deployment(), "service.yaml": template})

    assert placed(folder, findings) == [("service.yaml", line_of(template, "targetPort"), "error")]
    assert (
        "targetPort https is no named port of the containers it selects in Deployment" in findings[0].message
    )


def test_a_target_port_a_selected_container_names_is_fine(tmp_path: Path) -> None:
    _, findings = lint_kind(tmp_path, {"deployment.yaml": deployment(), "service.yaml": service()})

    assert findings == []
