"""A child the API server refuses is reported at the template line that wrote it, with the
server's own message: the line of the field a 422 names (or of the field the server made it
from), else the child's ``metadata.name``; a
child is found by the way the server names it (``Service "web"``, ``services "web"``) or by the
engine's conflict message."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.core.templating import rendering
from engine.tools import refusals

KIND = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent: {apiVersion: tests.stencil.dev/v1, kind: Widget}
templates: [service.yaml, account.yaml]
"""
ACCOUNT = """\
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ name }}
"""
SERVICE = """\
apiVersion: v1
kind: Service
metadata:
  name: {{ name }}
spec:
  selector: {app: x}
  clusterIP: 10.0.0.10
  ports:
    - port: 80
"""
PARENT = {
    "apiVersion": "tests.stencil.dev/v1",
    "kind": "Widget",
    "metadata": {"name": "web", "namespace": "ns", "uid": "u-1"},
    "spec": {},
}


def rendered(tmp_path: Path) -> list[rendering.Located]:
    folder = tmp_path / "widget"
    folder.mkdir()
    for name, text in {"kind.yaml": KIND, "account.yaml": ACCOUNT, "service.yaml": SERVICE}.items():
        (folder / name).write_text(text)
    return rendering.render_located(kinds.load_kind(folder), dict(PARENT), [])


def refusal(reason: str, message: str) -> refusals.Refusal:
    return refusals.Refusal("ChildrenApplied", reason, message)


def test_refused_child_is_reported_at_its_template_line(tmp_path: Path) -> None:
    # As the API server words it: it names spec.clusterIPs, which it fills from spec.clusterIP.
    message = (
        '422 Service "web" is invalid: spec.clusterIPs: Invalid value: ["10.0.0.10"]: '
        "failed to allocate IP 10.0.0.10: the provided network does not match the current range"
    )

    found = refusals.report(refusal("Invalid", message), rendered(tmp_path))

    assert found == f"{tmp_path}/widget/service.yaml:7: Service web: {message}"


def test_a_refusal_naming_no_field_is_at_the_childs_name(tmp_path: Path) -> None:
    message = '403 serviceaccounts "web" is forbidden: User "x" cannot create resource "serviceaccounts"'

    found = refusals.report(refusal("Forbidden", message), rendered(tmp_path))

    assert found == f"{tmp_path}/widget/account.yaml:4: ServiceAccount web: {message}"


def test_a_conflict_is_at_the_child_it_names(tmp_path: Path) -> None:
    message = "Service ns/web already exists and is not controlled by this Widget"

    found = refusals.report(refusal("ChildConflict", message), rendered(tmp_path))

    assert found == f"{tmp_path}/widget/service.yaml:4: Service web: {message}"


def test_the_field_a_422_names_is_read_as_a_path() -> None:
    assert refusals.refused_field('Service "w" is invalid: spec.ports[0].port: Invalid value') == (
        "spec",
        "ports",
        0,
        "port",
    )
    assert refusals.refused_field('Service "w" is invalid: [spec.clusterIP: Invalid, x: y]') == (
        "spec",
        "clusterIP",
    )
    assert refusals.refused_field('services "w" is forbidden: nope') == ()
