"""Offline, a child of a kind the cluster would not serve is refused at its template's apiVersion line, in
the words the engine says it live: ``stencil render`` exits non-zero and ``stencil lint`` reports an error.
A kind of a group Kubernetes serves itself is served in the versions of the pinned Kubernetes version
(``apps/v1beta1`` is long gone); a kind with a CRD given, in the versions its CRD serves.  A kind of another
group with no CRD given is not refused: the cluster may have its CRD."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from engine.core.model import apis
from engine.tools import cli, linter
from tests.unit._lintkinds import kind_folder

SERVER = f"the API server of Kubernetes {apis.KUBERNETES_VERSION}"
RBAC = "placement: {rbac: true}\n"


def child(api_version: str, kind: str) -> str:
    # apiVersion on line 3, after the kind: its own line is where the refusal points
    return f"# a child\nkind: {kind}\napiVersion: {api_version}\nmetadata:\n  name: x\n"


def render(folder: Path) -> Result:
    example = folder / "examples" / "small.yaml"
    return CliRunner().invoke(cli.main, ["render", str(folder), "-f", str(example)])


@pytest.mark.parametrize(
    ("api_version", "kind", "served_in"),
    [
        ("rbac.authorization.k8s.io/v1beta1", "Role", " (it serves Role in rbac.authorization.k8s.io/v1)"),
        ("apps/v1beta1", "Deployment", " (it serves Deployment in apps/v1)"),
        ("extensions/v1beta1", "Ingress", ""),
        ("v1", "Deployment", ""),
        ("policy/v1beta1", "PodSecurityPolicy", ""),
        (
            "autoscaling/v2beta2",
            "HorizontalPodAutoscaler",
            " (it serves HorizontalPodAutoscaler in autoscaling/v1, autoscaling/v2)",
        ),
    ],
)
def test_stencil_render_refuses_a_builtin_kind_the_pinned_version_does_not_serve(
    tmp_path: Path, api_version: str, kind: str, served_in: str
) -> None:
    folder = kind_folder(tmp_path, {"x.yaml": child(api_version, kind)}, kind_yaml_extra=RBAC)

    result = render(folder)

    assert result.exit_code == 1
    said = f"{folder / 'x.yaml'}:3: apiVersion: {kind} 'x': {SERVER} serves no kind {kind} in {api_version}"
    assert f"Error: {said}{served_in}\n" in result.output


def test_stencil_render_refuses_a_version_the_kinds_crd_does_not_serve(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"x.yaml": child("example.com/v2", "Web")})

    result = render(folder)

    assert result.exit_code == 1
    assert (
        "x.yaml:3: apiVersion: Web 'x': the CRD of Web given serves no kind Web in example.com/v2"
        in result.output
    )
    assert "(it serves Web in example.com/v1)" in result.output


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [("rbac.authorization.k8s.io/v1", "Role"), ("monitoring.coreos.com/v1", "ServiceMonitor")],
)
def test_a_served_kind_or_one_of_a_group_without_a_crd_given_renders(
    tmp_path: Path, api_version: str, kind: str
) -> None:
    folder = kind_folder(tmp_path, {"x.yaml": child(api_version, kind)}, kind_yaml_extra=RBAC)

    assert render(folder).exit_code == 0


def test_a_malformed_api_version_is_refused_at_its_line_too(tmp_path: Path) -> None:
    folder = kind_folder(
        tmp_path, {"x.yaml": child("rbac.authorization.k8s.io/v1/", "Role")}, kind_yaml_extra=RBAC
    )

    result = render(folder)

    assert result.exit_code == 1
    assert f"{folder / 'x.yaml'}:3: apiVersion: a rendered Role has apiVersion" in result.output


def test_stencil_lint_reports_it_as_an_error_at_its_line(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"x.yaml": child("apps/v1beta1", "Deployment")})

    findings = [f for f in linter.lint([folder]) if f.severity == "error"]

    assert [(f.file, f.line, f.check) for f in findings] == [(str(folder / "x.yaml"), 3, "unserved")]
    said = f"Deployment 'x': {SERVER} serves no kind Deployment in apps/v1beta1"
    assert findings[0].message == f"apiVersion: {said} (it serves Deployment in apps/v1)"


def test_stencil_render_status_refuses_it_too(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"x.yaml": child("apps/v1beta1", "Deployment")})
    example = folder / "examples" / "small.yaml"

    result = CliRunner().invoke(cli.main, ["render", str(folder), "-f", str(example), "--status"])

    assert result.exit_code == 1
    assert f"{folder / 'x.yaml'}:3: apiVersion: Deployment 'x': {SERVER} serves no kind" in result.output
