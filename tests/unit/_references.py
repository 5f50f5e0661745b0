"""References built in memory, for the tests of what a kind's references read."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.core.model.kinds import Kind, Placement
from engine.core.model.language.expressions import compile_expression
from engine.core.model.references import Reference
from tests.unit import _kinds


def reference(
    id: str = "config",
    *,
    name: str | None = "spec.configName",
    namespace: str | None = None,
    kind: str = "ConfigMap",
    selector: dict[str, str] | None = None,
    optional: bool = False,
) -> Reference:
    """A reference as kind.yaml's line 7 would say it (name and namespace expressions on 8 and 9)."""

    def expression(text: str | None, line: int, key: str) -> Any:
        return None if text is None else compile_expression(text, file="kind.yaml", line=line, field=key)

    return Reference(
        id=id,
        api_version="v1",
        kind=kind,
        name=None if selector else expression(name, 8, "references[0].name"),
        selector=tuple(sorted((selector or {}).items())),
        namespace=expression(namespace, 9, "references[0].namespace"),
        optional=optional,
        line=7,
        file="kind.yaml",
    )


def kind(*references: Reference, templates: tuple[str, ...] = (), placement: Placement | None = None) -> Kind:
    return dataclasses.replace(_kinds.kind(*templates, placement=placement), references=references)


def parent(**spec: Any) -> dict[str, Any]:
    metadata = {"name": "echo", "namespace": "shop", "uid": "u-1"}
    return {"apiVersion": _kinds.API_VERSION, "kind": _kinds.KIND, "metadata": metadata, "spec": spec}


def config_map(name: str, namespace: str = "shop", **labels: str) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "labels": labels}
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"ECHO": name}}


def builtin_scope(api_version: str, kind: str) -> bool:
    return kind != "Namespace"
