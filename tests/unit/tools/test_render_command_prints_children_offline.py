"""`stencil render` prints the children as they would be applied, offline, or fails with file:line."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner, Result

from engine.core.model import kinds
from engine.core.model.children import placement
from engine.tools import cli
from tests.unit import _kinds

ROOT = Path(__file__).resolve().parents[3]
FOLDER = _kinds.SEED_FOLDER
SAMPLE = FOLDER / "examples" / "deploywebservice-sample.yaml"
CR = _kinds.SEED_CR


def stencil(*args: str | Path) -> Result:
    return CliRunner().invoke(cli.main, ["render", str(FOLDER), *map(str, args)])


def test_the_seed_sample_renders_its_deployment_and_service_with_owner_and_labels() -> None:
    result = stencil("-f", SAMPLE)
    assert result.exit_code == 0, result.output
    deployment, service = yaml.safe_load_all(result.stdout)
    assert (deployment["kind"], deployment["metadata"]["name"]) == (
        "Deployment",
        "deploywebservice-sample-deployment",
    )
    assert (service["kind"], service["metadata"]["name"]) == ("Service", "deploywebservice-sample-service")
    for child in (deployment, service):
        assert child["metadata"]["namespace"] == "default"
        assert child["metadata"]["ownerReferences"][0]["uid"] == placement.NO_UID
        assert child["metadata"]["labels"][placement.KIND_LABEL] == "deploywebservice"
    assert service["spec"]["ports"] == [
        {"name": "webhttp", "protocol": "TCP", "port": 80, "targetPort": 8080}
    ]


def test_crd_defaults_and_the_namespace_option_apply(tmp_path: Path) -> None:
    (tmp_path / "cr.yaml").write_text(CR)
    result = stencil("-f", tmp_path / "cr.yaml", "-n", "shops")
    assert result.exit_code == 0, result.output
    deployment, service = yaml.safe_load_all(result.stdout)
    assert deployment["spec"]["replicas"] == 1
    assert service["spec"]["ports"][0]["targetPort"] == 8080
    assert {deployment["metadata"]["namespace"], service["metadata"]["namespace"]} == {"shops"}


def test_several_files_render_in_order_and_other_kinds_are_skipped(tmp_path: Path) -> None:
    (tmp_path / "cr.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n---\n" + CR)
    result = stencil("-f", SAMPLE, "-f", tmp_path / "cr.yaml")
    assert result.exit_code == 0, result.output
    names = [doc["metadata"]["name"] for doc in yaml.safe_load_all(result.stdout)]
    assert names == [
        "deploywebservice-sample-deployment",
        "deploywebservice-sample-service",
        "shop-deployment",
        "shop-service",
    ]


def test_a_cr_the_crd_would_refuse_fails_with_its_file_line_and_field(tmp_path: Path) -> None:
    (tmp_path / "cr.yaml").write_text(CR + "  replicas: -1\n")
    result = stencil("-f", tmp_path / "cr.yaml")
    assert result.exit_code != 0
    crd = kinds.load_kind(FOLDER).crd  # written from its kind.yaml's schema:
    assert crd is not None
    replicas = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    (rule,) = replicas["replicas"]["x-kubernetes-validations"]
    assert f"{tmp_path / 'cr.yaml'}:7: spec.replicas: {rule['message']}" in result.output
    assert f"rule: {rule['rule']}" in result.output


def test_a_template_error_names_the_template_and_the_cr(tmp_path: Path) -> None:
    (tmp_path / "cr.yaml").write_text(CR)
    folder = _kinds.seed_with_crd_file(tmp_path / "templates" / "deploywebservice")
    (tmp_path / "crds").mkdir()
    arguments = ["render", str(folder), "-f", str(tmp_path / "cr.yaml"), "--crds", str(tmp_path / "crds")]
    result = CliRunner().invoke(cli.main, arguments)  # no CRD: no defaults
    assert result.exit_code != 0
    assert "deployment.yaml:6: spec.replicas: not set" in result.output
    assert f"(rendering DeployWebService shop from {tmp_path / 'cr.yaml'}:1)" in result.output


def test_files_without_a_cr_of_the_kind_are_an_error(tmp_path: Path) -> None:
    (tmp_path / "other.yaml").write_text("apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n")
    result = stencil("-f", tmp_path / "other.yaml")
    assert result.exit_code != 0
    assert "no DeployWebService (operator.wujiuye.com/v1beta1)" in result.output


def test_a_yaml_error_in_a_cr_names_its_line(tmp_path: Path) -> None:
    (tmp_path / "cr.yaml").write_text(CR + "  image: again\n")
    result = stencil("-f", tmp_path / "cr.yaml")
    assert result.exit_code != 0
    assert f"{tmp_path / 'cr.yaml'}:7: duplicate key 'image'" in result.output
