"""A CR that breaks its CRD's CEL rule is refused offline, at the rule's field,
citing the rule and the value."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.model import kinds
from engine.core.model.errors import StencilError
from engine.core.model.language import documents
from engine.core.offline import admission

ROOT = Path(__file__).resolve().parents[4]
FOLDER = ROOT / "templates" / "network"
CRDS = ROOT / "crds"
KIND = kinds.load_kind(FOLDER)  # its CRD is written from its kind.yaml's schema:


def spec_rule() -> dict[str, Any]:
    assert KIND.crd is not None
    (rule,) = KIND.crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"][
        "x-kubernetes-validations"
    ]
    return dict(rule)


def network(tmp_path: Path, gateway: str) -> documents.Document:
    (example,) = sorted((FOLDER / "examples").glob("*.yaml"))
    data = yaml.safe_load(example.read_text())
    data["spec"]["gateway"] = gateway
    (tmp_path / "network.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return documents.Document.read(tmp_path / "network.yaml", StencilError)


def test_a_gateway_outside_the_cidr_is_refused_citing_the_rule(tmp_path: Path) -> None:
    rule = spec_rule()
    document = network(tmp_path, "10.0.0.1")
    crds = admission.OfflineCrds.read(CRDS, [KIND])

    with pytest.raises(StencilError) as caught:
        crds.admit(document, KIND, "default")

    error = caught.value
    assert (error.file, error.field) == (str(tmp_path / "network.yaml"), "spec" + rule["fieldPath"])
    assert error.line == document.line_of(("spec", "gateway"))
    assert rule["message"] in error.message
    assert rule["rule"] in error.message
    assert "'10.0.0.1'" in error.message


def test_the_shipped_example_passes_every_rule_with_nothing_left_unchecked(tmp_path: Path) -> None:
    (example,) = sorted((FOLDER / "examples").glob("*.yaml"))
    document = documents.Document.read(example, StencilError)

    found = admission.OfflineCrds.read(CRDS, [KIND]).problems(document, KIND, "default")

    assert found == ([], [])


@pytest.mark.parametrize("gateway", ["192.168.255.254", "192.168.0.1"])
def test_a_gateway_inside_the_cidr_is_admitted(tmp_path: Path, gateway: str) -> None:
    document = network(tmp_path, gateway)

    admitted = admission.OfflineCrds.read(CRDS).admit(document, kinds.load_kind(FOLDER), "default")

    assert admitted is not None
    assert admitted["spec"]["gateway"] == gateway
