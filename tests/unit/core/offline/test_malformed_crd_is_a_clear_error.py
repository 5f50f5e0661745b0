"""A CRD that breaks the CRD format is an error naming its file, line and field when it is read,
never a crash."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.model.errors import StencilError
from engine.core.offline import admission
from tests.unit import _crs

SCHEMA = ("spec", "versions", 0, "schema", "openAPIV3Schema")
SPEC = (*SCHEMA, "properties", "spec")


def broken(change: str) -> tuple[dict[str, Any], tuple[str | int, ...]]:
    """A CRD with one thing wrong, and the path of the field at fault."""
    crd = _crs.crd({"type": "object", "properties": {"name": {"type": "string"}}})
    spec = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    if change == "spec-as-a-list":
        crd["spec"] = [crd["spec"]]
        return crd, ("spec",)
    if change == "misspelt-type":
        spec["properties"]["name"]["type"] = "strnig"
        return crd, (*SPEC, "properties", "name", "type")
    if change == "required-as-a-string":
        spec["required"] = "name"
        return crd, (*SPEC, "required")
    if change == "invalid-pattern":
        spec["properties"]["name"]["pattern"] = "(?<=a)b"
        return crd, (*SPEC, "properties", "name", "pattern")
    if change == "unknown-schema-field":
        spec["properties"]["name"]["maxlength"] = 3
        return crd, (*SPEC, "properties", "name", "maxlength")
    assert change == "rule-without-rule"
    spec["x-kubernetes-validations"] = [{"message": "no rule"}]
    return crd, (*SPEC, "x-kubernetes-validations", 0)


def dotted(path: tuple[str | int, ...]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


@pytest.mark.parametrize(
    "change",
    [
        "spec-as-a-list",
        "misspelt-type",
        "required-as-a-string",
        "invalid-pattern",
        "unknown-schema-field",
        "rule-without-rule",
    ],
)
def test_the_error_names_the_crd_file_and_the_field(tmp_path: Path, change: str) -> None:
    crd, path = broken(change)
    file = _crs.write(tmp_path / "crds", "web.yaml", crd)

    with pytest.raises(StencilError) as caught:
        admission.OfflineCrds.read(tmp_path / "crds")

    assert (caught.value.file, caught.value.field) == (str(file), dotted(path))
    assert caught.value.line is not None and caught.value.line > 1


def test_an_invalid_pattern_says_what_re2_refused(tmp_path: Path) -> None:
    crd, _ = broken("invalid-pattern")
    _crs.write(tmp_path / "crds", "web.yaml", crd)

    with pytest.raises(StencilError, match=r"\(\?<=a\)b"):
        admission.read_crds(tmp_path / "crds")
