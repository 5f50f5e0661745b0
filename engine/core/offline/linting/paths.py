"""Paths into the parent: which fields ``spec.a.b``, ``metadata.labels`` or ``parent.spec.a`` may name.

A template or status rule reads the parent through a few names (``spec``,
``metadata``, ``parent``, and ``status`` in a rule), and each path it writes is
read here against the parent CRD's ``openAPIV3Schema`` one step at a time, as
the sandbox would look it up: a step the schema has no room for is ``Missing``
(with the fields it does have, for a suggestion); a step into a part the schema
leaves open, or onto a method such as ``.items()``, is not known, and nothing is
said.  A CRD's schema says only ``metadata: {type: object}``; what ObjectMeta
holds is the API server's, read from the OpenAPI snapshot ``childschemas``
checks children with, so the two cannot disagree.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from jinja2 import nodes

from engine.core.offline.childschemas.snapshot import read_snapshot
from engine.core.templating import sandbox

_OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
_REF = "#/components/schemas/"


@functools.cache
def object_meta() -> Mapping[str, Any]:
    """The API server's ObjectMeta, as the OpenAPI snapshot has it, with its ``$ref``s written in place."""
    schemas: Mapping[str, Any] = read_snapshot()["components"]["schemas"]
    inlined: Mapping[str, Any] = _inlined(schemas[_OBJECT_META], schemas, (_OBJECT_META,))
    return inlined


def _inlined(schema: Any, schemas: Mapping[str, Any], seen: tuple[str, ...]) -> Any:
    """``schema`` with each ``$ref`` (alone, or as an ``allOf`` of one) replaced by what it names."""
    if isinstance(schema, list):
        return [_inlined(item, schemas, seen) for item in schema]
    if not isinstance(schema, Mapping):
        return schema
    wrapped = schema.get("allOf")
    if isinstance(wrapped, list) and len(wrapped) == 1 and isinstance(wrapped[0], Mapping):
        schema = {**{k: v for k, v in schema.items() if k != "allOf"}, **wrapped[0]}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith(_REF):
        name = ref.removeprefix(_REF)
        if name in seen:  # a type that holds itself: what is below is not known
            return {"x-kubernetes-preserve-unknown-fields": True}
        schema = {**{k: v for k, v in schema.items() if k != "$ref"}, **schemas[name]}
        seen = (*seen, name)
    inlined = {key: _inlined(value, schemas, seen) for key, value in schema.items()}
    if (
        inlined.get("type") == "object"
        and "properties" not in inlined
        and "additionalProperties" not in inlined
    ):
        # The OpenAPI leaves such an object open (FieldsV1), where a CRD's schema would be empty.
        inlined["x-kubernetes-preserve-unknown-fields"] = True
    return inlined


# What a mapping answers that is not a field: the sandbox gives a CR field of the name first.
MAPPING_METHODS = frozenset({"items", "keys", "values", "get"})
_ANY = object()  # the index of a `spec.ports[i]` whose i is not a constant
Key = str | int | object


@dataclass(frozen=True)
class Missing:
    known: tuple[str, ...]


def _step(schema: Mapping[str, Any], key: Key) -> Mapping[str, Any] | Missing | None:
    """The schema of ``key`` under ``schema``; ``Missing`` if it cannot be there; None if not known."""
    if isinstance(key, int) or key is _ANY:
        items = schema.get("items")
        if isinstance(items, Mapping):
            return items
        extra = schema.get("additionalProperties")
        return extra if key is _ANY and isinstance(extra, Mapping) else None
    assert isinstance(key, str)
    properties: Mapping[str, Any] = schema.get("properties") or {}
    if schema.get("x-kubernetes-embedded-resource"):
        properties = {"apiVersion": {"type": "string"}, "kind": {"type": "string"}, **properties}
        properties = {**properties, "metadata": object_meta()}
    if key in properties:
        sub = properties[key]
        return sub if isinstance(sub, Mapping) else None
    extra = schema.get("additionalProperties")
    if schema.get("x-kubernetes-preserve-unknown-fields") or extra is True:
        return None
    if isinstance(extra, Mapping):
        return extra
    if key in MAPPING_METHODS or (schema.get("type") != "object" and not properties):
        return None  # a method (`.items()`, a string's `.upper()`), not a field
    return Missing(tuple(properties))


def chain(node: nodes.Node) -> tuple[str, list[Key]] | None:
    """``spec.a['b'][0]`` -> ``("spec", ["a", "b", 0])``; None if it is not a chain from a name."""
    path: list[Key] = []
    while isinstance(node, nodes.Getattr | nodes.Getitem):
        if isinstance(node, nodes.Getattr):
            path.append(node.attr)
        elif isinstance(node.arg, nodes.Const) and isinstance(node.arg.value, str | int):
            path.append(node.arg.value)
        elif isinstance(node.arg, nodes.Slice):
            pass  # a slice of a list is a list of the same items
        else:
            path.append(_ANY)
        node = node.node
    if not isinstance(node, nodes.Name) or node.ctx != "load":
        return None
    return node.name, path[::-1]


def path_text(root: str, path: Sequence[Key]) -> str:
    text = root
    for key in path:
        text = f"{text}[…]" if key is _ANY else sandbox.join_path(text, key)
    return text


def resolve(
    roots: Mapping[str, Mapping[str, Any]], root: str, path: Sequence[Key]
) -> Mapping[str, Any] | tuple[int, Missing] | None:
    """The schema at ``root`` + ``path``; ``(index, missing)`` for the first step that cannot be; None if
    not known (no schema, or a part the schema leaves open)."""
    schema = roots.get(root)
    for index, key in enumerate(path):
        if schema is None:
            return None
        step = _step(schema, key)
        if isinstance(step, Missing):
            return index, step
        schema = step
    return schema


def parent_roots(schema: Mapping[str, Any] | None, *, status: bool) -> dict[str, Mapping[str, Any]]:
    """The names a template or rule reads the parent by, each with its schema."""
    if schema is None:
        return {}
    properties = dict(schema.get("properties") or {})
    properties["metadata"] = object_meta()
    parent = {**schema, "properties": properties}
    roots: dict[str, Mapping[str, Any]] = {"parent": parent, "metadata": object_meta()}
    for name in ("spec", "status") if status else ("spec",):
        if isinstance(properties.get(name), Mapping):
            roots[name] = properties[name]
        else:
            roots[name] = {"type": "object", "properties": {}}
    return roots
