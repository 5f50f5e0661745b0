"""An Ingress backend naming a Service the kind does not render, or a port its Service lacks, points
nowhere: an error at the backend's line."""

from __future__ import annotations

from pathlib import Path

from tests.unit._lintkinds import line_of
from tests.unit._siblings import deployment, lint_kind, placed, service


def ingress(backend: str, port: str) -> str:
    return (
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: '{{ name }}'\nspec:\n"
        "  rules:\n    - http:\n        paths:\n          - path: /\n            pathType: Prefix\n"
        f"            backend:\n              service:\n                name: {backend}\n"
        f"                port: {port}\n"
    )


def test_a_backend_naming_a_service_the_kind_does_not_render_is_an_error(tmp_path: Path) -> None:
    template = ingress("'{{ name }}-web'", "{number: 80}")
    templates = {"deployment.yaml": deployment(), "service.yaml": service(), "ingress.yaml": template}

    folder, findings = lint_kind(tmp_path, templates)

    assert placed(folder, findings) == [
        ("ingress.yaml", line_of(template, "name: '{{ name }}-web'"), "error")
    ]
    assert "names Service small-web, which the kind does not render (it renders Service small)" in (
        findings[0].message
    )


def test_a_backend_port_its_service_lacks_is_an_error(tmp_path: Path) -> None:
    template = ingress("'{{ name }}'", "{name: http}")
    templates = {"deployment.yaml": deployment(), "service.yaml": service(), "ingress.yaml": template}

    folder, findings = lint_kind(tmp_path, templates)

    assert placed(folder, findings) == [("ingress.yaml", line_of(template, "port: {name: http}"), "error")]
    assert "port name http is no port of Service small (web)" in findings[0].message


def test_a_backend_naming_a_rendered_service_and_port_is_fine(tmp_path: Path) -> None:
    templates = {
        "deployment.yaml": deployment(),
        "service.yaml": service(),
        "ingress.yaml": ingress("'{{ name }}'", "{number: 80}"),
    }

    _, findings = lint_kind(tmp_path, templates)

    assert findings == []
