"""Kind folders with a ``schema:`` in kind.yaml, written for the schema tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.model import kinds

HEAD = """apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: shop.example.com/v1
  kind: Shop
templates: [configmap.yaml]
"""
TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ name }}'\n"


def folder(root: Path, schema_text: str) -> Path:
    """A kind folder under ``root`` whose kind.yaml ends with ``schema_text`` (YAML, at the top level)."""
    directory = root / "shop"
    directory.mkdir(exist_ok=True)
    (directory / kinds.KIND_FILE).write_text(HEAD + schema_text)
    (directory / "configmap.yaml").write_text(TEMPLATE)
    return directory


def crd(root: Path, schema_text: str) -> dict[str, Any]:
    generated = kinds.load_kind(folder(root, schema_text)).crd
    assert generated is not None
    return generated


def spec_of(generated: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = generated["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    spec: dict[str, Any] = schema["properties"]["spec"]
    return spec
