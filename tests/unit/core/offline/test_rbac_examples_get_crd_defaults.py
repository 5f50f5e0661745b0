"""Examples may leave defaulted fields out, as users' CRs do: ``stencil rbac`` renders them
with their CRD's defaults filled in, as the API server would."""

from pathlib import Path

import pytest
import yaml

from engine.core.model import kinds
from engine.core.model.errors import RenderError
from engine.core.offline import admission, rbac
from tests.unit import _crs

SPEC = {"type": "object", "properties": {"backend": {"type": "string", "default": "Secret"}}}
CRD = yaml.safe_dump(
    _crs.definition(
        "example.com",
        {"kind": "Web", "plural": "webs", "singular": "web"},
        {"type": "object", "properties": {"spec": SPEC}},
    )
)
KIND_YAML = (
    "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\nparent: {apiVersion: example.com/v1, kind: Web}\n"
)
TEMPLATE = "apiVersion: v1\nkind: {{ spec.backend }}\nmetadata: {name: x}\n"
EXAMPLE = "apiVersion: example.com/v1\nkind: Web\nmetadata: {name: w}\nspec: {}\n"


def setup(tmp_path: Path) -> tuple[kinds.Kind, admission.OfflineCrds]:
    (tmp_path / "crds").mkdir()
    (tmp_path / "crds" / "web.yaml").write_text(CRD)
    folder = tmp_path / "web"
    (folder / "examples").mkdir(parents=True)
    (folder / "kind.yaml").write_text(KIND_YAML)
    (folder / "child.yaml").write_text(TEMPLATE)
    (folder / "examples" / "w.yaml").write_text(EXAMPLE)
    return kinds.load_kind(folder), admission.OfflineCrds.read(tmp_path / "crds")


def test_defaulted_field_left_out_of_an_example_still_renders(tmp_path: Path) -> None:
    kind, crds = setup(tmp_path)

    assert rbac.rendered_child_kinds(kind, crds.defaulted) == {("v1", "Secret")}


def test_without_the_crd_the_missing_field_is_an_error(tmp_path: Path) -> None:
    kind, _ = setup(tmp_path)

    with pytest.raises(RenderError, match=r"spec\.backend"):
        rbac.rendered_child_kinds(kind)
