"""The built-in kinds' schemas: the API server's own OpenAPI, read once and adapted to what it accepts.

A built-in kind's schema comes from ``engine/schemas/kubernetes-openapi.json.gz``, written by
``hack/openapi-snapshot`` from the kube-apiserver the project builds; its ``$ref``s resolve
through a ``referencing`` registry, and each kind's validator (the OpenAPI dialect of
``engine.core.model.crds.structural``) is built once.

The OpenAPI that Kubernetes serves for its built-in kinds describes Go types
rather than what their decoder accepts, so the snapshot is adapted once, when
it is loaded (``_as_served``): an object with ``properties`` is closed (the
served schemas never say ``additionalProperties: false``, yet server-side apply
refuses an undeclared field); every field is nullable (the decoder reads
``null`` as "not set"); an IntOrString takes either; and a Quantity or a Time,
served as a bare string, gets the pattern the server parses it with.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from engine.core.model.crds import predicates, structural

SNAPSHOT_FILE = "kubernetes-openapi.json.gz"

_URI = "urn:stencil:kubernetes-openapi"
_REF = f"{_URI}#/components/schemas/"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_QUANTITY_TEXT = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
_RFC3339 = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"


@dataclass(frozen=True)
class Snapshot:
    """The snapshot as read: its Kubernetes version, its kinds' schema names, and the schemas."""

    version: str
    kinds: dict[str, dict[str, str]]  # apiVersion -> kind -> schema name
    registry: Registry[Any]


@functools.cache
def read_snapshot() -> Mapping[str, Any]:
    """The snapshot as read on first use: its Kubernetes version, its kinds, and the schemas as the
    API server publishes them (``components.schemas``)."""
    raw = resources.files("engine").joinpath("schemas", SNAPSHOT_FILE).read_bytes()
    read: Mapping[str, Any] = json.loads(gzip.decompress(raw))
    return read


@functools.cache
def snapshot() -> Snapshot:
    """The snapshot, read and adapted on first use."""
    read = read_snapshot()
    schemas = {name: _as_served(schema) for name, schema in read["components"]["schemas"].items()}
    # Quantity and Time are strings the server parses in Go code; the schema says only "string".
    schemas[_QUANTITY] = {"type": ["string", "number"], "nullable": True, "pattern": _QUANTITY_TEXT}
    schemas[_TIME] = {"type": "string", "nullable": True, "pattern": _RFC3339}
    resource = Resource.from_contents({"components": {"schemas": schemas}}, default_specification=DRAFT4)
    return Snapshot(read["kubernetesVersion"], read["kinds"], Registry().with_resource(_URI, resource))


def snapshot_version() -> str:
    """The Kubernetes version the built-in schemas were read from (``v1.34.4``)."""
    return snapshot().version


@functools.cache
def builtin_validator(name: str) -> Validator:
    """The validator of the snapshot's schema ``name`` (a built-in kind's), built once."""
    validator: Validator = structural.OpenApiValidator({"$ref": _REF + name}, registry=snapshot().registry)
    return validator


@functools.cache
def builtin_predicate(name: str) -> predicates.Predicate | None:
    """The snapshot's schema ``name`` as a yes-or-no check (``predicates``), compiled once: a child
    that breaks nothing costs no walk of ``builtin_validator``'s."""
    validator = builtin_validator(name)
    return predicates.compile({"$ref": _REF + name}, validator)


def _as_served(schema: Any) -> Any:
    """A served schema read the way the API server reads JSON into its kind (see the module's docstring)."""
    if not isinstance(schema, dict):
        return schema
    adapted = {key: _sub_schemas(key, value) for key, value in schema.items()}
    if adapted.get("format") == "int-or-string":  # served as a oneOf of bare types, which null would fail
        adapted = {k: v for k, v in adapted.items() if k not in ("oneOf", "format")}
        adapted["x-kubernetes-int-or-string"] = True
    if "properties" in adapted and "additionalProperties" not in adapted:
        adapted["additionalProperties"] = False
    if "type" in adapted or "x-kubernetes-int-or-string" in adapted:
        adapted["nullable"] = True
    return adapted


def _sub_schemas(key: str, value: Any) -> Any:
    if key in ("items", "additionalProperties", "not"):
        return _as_served(value)
    if key in ("allOf", "anyOf", "oneOf"):
        return [_as_served(item) for item in value]
    if key in ("properties", "patternProperties"):
        return {name: _as_served(item) for name, item in value.items()}
    return copy.deepcopy(value)
