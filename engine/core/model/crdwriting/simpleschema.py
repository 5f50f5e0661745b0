"""The CRD a kind writes for itself: a short schema in ``kind.yaml``, made into a CustomResourceDefinition.

A hand-written CRD is 40 to 150 lines of OpenAPI for what a reader says in a line a field.
``schema:`` in ``kind.yaml`` says a field the way kro's SimpleSchema does, a type and
markers after a bar (``schemafields`` reads them)::

    schema:
      spec:
        image: string | required=true description="The container image"
        replicas: integer | default=1 minimum=0 maximum=20
        tier: string | enum=web,worker default=web
        ingress:                      # a nested mapping is an object
          host: string | pattern="^[a-z0-9.-]+$"
        ports:                        # a list of one item is a list of that item
          - port: integer | required=true minimum=1 maximum=65535
        labels: map[string]string     # []T a list, map[string]T a map, object anything
      validations:
        - rule: self.replicas <= 10 || self.tier == 'worker'
          message: a web tier has at most 10 replicas
        - field: ingress.host         # a rule on a field: self is its value
          rule: "!self.endsWith('.local')"

``crd`` gives the CRD (``apiextensions.k8s.io/v1``, structural, with the status
subresource and the Ready, Reason and Age columns), or a ``KindError`` at the file, line
and field of ``kind.yaml`` that is wrong.  An object whose fields have defaults and none
required defaults to ``{}``, so its fields' defaults always apply.  The status defaults to
``observedGeneration: 0``, so kstatus waits for the engine's first write.  The spec, the status
and the engine's status fields are described, so ``kubectl explain`` has words for each.  The
form says what the CRDs Stencil ships by hand said, so that a kind can keep such an API exactly:
a rule on a field, the reason a name is bounded, the annotation a group under k8s.io needs.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from engine.core.model import apis
from engine.core.model.crdwriting import schemafields
from engine.core.model.language.documents import Document, FieldPath

Schema = dict[str, Any]


def _described(schema: Schema, description: str) -> Schema:
    return {"description": description, **schema}


def _conditions(kind: str) -> Schema:
    """The conditions' schema, each field saying what ``kubectl explain`` should tell of it."""
    fields: dict[str, tuple[Schema, str]] = {
        "type": (
            {"type": "string", "maxLength": 316},
            "Type of the condition, in CamelCase: Ready, or one of the conditions Ready is made of.",
        ),
        "status": (
            {"type": "string", "enum": ["True", "False", "Unknown"]},
            "Status of the condition: True, False or Unknown.",
        ),
        "observedGeneration": (
            {"type": "integer", "format": "int64", "minimum": 0},
            "The metadata.generation the condition was set for.",
        ),
        "lastTransitionTime": (
            {"type": "string", "format": "date-time"},
            "When the condition's status last changed.",
        ),
        "reason": (
            {"type": "string", "minLength": 1, "maxLength": 1024},
            "Why the condition is as it is, in CamelCase; `kubectl get` shows Ready's in its Reason column.",
        ),
        "message": (
            {"type": "string", "maxLength": 32768},
            "What the reason means for this object, for a person to read.",
        ),
    }
    return {
        "description": f"The {kind}'s conditions; Ready says whether its children are all ready, "
        "and its reason why not.",
        "type": "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["type"],
        "items": {
            "type": "object",
            "required": ["type", "status", "lastTransitionTime", "reason", "message"],
            "properties": {name: _described(field, said) for name, (field, said) in fields.items()},
        },
    }


_READY = '.status.conditions[?(@.type=="Ready")]'
_COLUMNS = [
    {
        "name": "Ready",
        "type": "string",
        "jsonPath": f"{_READY}.status",
        "description": "Ready's status.",
    },
    {
        "name": "Reason",
        "type": "string",
        "jsonPath": f"{_READY}.reason",
        "description": "Ready's reason.",
    },
]
_AGE = {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"}
# Groups the API server keeps for APIs reviewed upstream: a CRD in one needs an annotation.
_RESERVED_GROUP = re.compile(r"(^|\.)(k8s|kubernetes)\.io$")
_APPROVAL = "api-approved.kubernetes.io"


def crd(document: Document, api_version: str, kind: str) -> dict[str, Any]:
    """The CRD of ``kind`` at ``api_version`` from the ``schema:`` of ``document`` (kind.yaml),
    with every version its ``versions:`` adds (``engine.core.model.versions``)."""
    given: dict[str, Any] = document.data["schema"]
    group, version = apis.split_api_version(api_version)
    plural = given.get("plural", _plural(kind.lower()))
    metadata: dict[str, Any] = {"name": f"{plural}.{group}", **_approval(document, group, api_version)}
    hub = {"name": version, "served": True, "storage": True, **served(document, given, ("schema",), kind)}
    names: dict[str, Any] = {
        "kind": kind,
        "listKind": f"{kind}List",
        "plural": plural,
        "singular": kind.lower(),
    }
    if "shortNames" in given:
        names["shortNames"] = given["shortNames"]
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": metadata,
        "spec": {
            "group": group,
            "names": names,
            "scope": given.get("scope", "Namespaced"),
            "versions": [hub],
        },
    }


def served(document: Document, given: dict[str, Any], path: FieldPath, kind: str) -> dict[str, Any]:
    """What a CRD version says of ``given``, a ``schema:`` at ``path`` of ``document``: its
    subresources, printer columns and OpenAPI schema."""
    reader = schemafields.Reader(document, given.get("types", {}), (*path, "types"))
    spec = _described(
        reader.object(given.get("spec", {}), (*path, "spec")),
        f"What the {kind} should be; the engine makes and updates its children from it.",
    )
    _place_rules(document, spec, given.get("validations", []), path)
    status = _status(reader.object(given.get("status", {}), (*path, "status")), kind)
    root: Schema = {"type": "object"}
    if "description" in given:
        root["description"] = given["description"]
    root["properties"] = {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "metadata": {"type": "object"},
        "spec": spec,
        "status": status,
    }
    if "maxNameLength" in given:
        root["x-kubernetes-validations"] = [_name_rule(given["maxNameLength"], kind)]
    if spec.get("required"):
        root["required"] = ["spec"]
    else:
        spec["default"] = {}  # so that an empty CR still gets every default
    return {
        "subresources": {"status": {}},
        "additionalPrinterColumns": _columns(given.get("printerColumns", []), root),
        "schema": {"openAPIV3Schema": root},
    }


def _approval(document: Document, group: str, api_version: str) -> dict[str, Any]:
    """The annotations a CRD in ``group`` needs: a group under k8s.io or kubernetes.io is served
    only with ``api-approved.kubernetes.io``, which ``schema.apiApproved`` gives."""
    approved = document.data["schema"].get("apiApproved")
    if not group:
        raise document.error(
            f"schema: cannot write a CRD for {api_version} (the core group has no custom resources)",
            ("parent", "apiVersion"),
        )
    if _RESERVED_GROUP.search(group) is None:
        if approved is not None:
            raise document.error(
                f"{group} is not a group under k8s.io or kubernetes.io, which alone need it",
                ("schema", "apiApproved"),
            )
        return {}
    if approved is None:
        raise document.error(
            f"schema: {group} is reserved for upstream APIs: the API server serves a CRD in it only "
            "with schema.apiApproved, the URL of its review or 'unapproved, ' and why",
            ("parent", "apiVersion"),
        )
    return {"annotations": {_APPROVAL: approved}}


def _place_rules(document: Document, spec: Schema, given: list[dict[str, Any]], path: FieldPath) -> None:
    """Put each CEL rule of ``validations:`` on the spec, or on the field it names (``field:``),
    before the rules the field's markers wrote."""
    placed: dict[int, tuple[Schema, list[dict[str, Any]]]] = {}
    for index, validation in enumerate(given):
        rule = {key: value for key, value in validation.items() if key != "field"}
        target = spec
        if "field" in validation:
            try:
                target = schemafields.field_at(spec, validation["field"])
            except LookupError as missing:
                raise document.error(f"{missing}", (*path, "validations", index, "field")) from None
        placed.setdefault(id(target), (target, []))[1].append(rule)
    for target, rules in placed.values():
        target["x-kubernetes-validations"] = [*rules, *target.get("x-kubernetes-validations", [])]


def _status(status: Schema, kind: str) -> Schema:
    """The status: what ``status:`` declares, the engine's own fields, and every field status rules write."""
    status["x-kubernetes-preserve-unknown-fields"] = True  # status rules may write more than is declared
    status["properties"] = {
        "observedGeneration": {
            "description": "The metadata.generation the status describes.",
            "type": "integer",
            "format": "int64",
        },
        "conditions": _conditions(kind),
        **status.get("properties", {}),
    }
    # A parent the engine has not seen yet reads as generation 0 observed: kstatus (Helm 4's
    # --wait, Flux, kpt) waits for the engine rather than reading it Current at once.
    status["default"] = {"observedGeneration": 0}
    return _described(status, f"What the engine last observed of the {kind} and its children.")


def _name_rule(bound: int | dict[str, Any], kind: str) -> dict[str, str]:
    """The rule on metadata.name that ``maxNameLength`` says: a length, or a length and why."""
    if isinstance(bound, int):
        bound = {"length": bound, "because": "its children are named after it"}
    message = f"a {kind} name is at most {bound['length']} characters: {bound['because']}"
    return {"rule": f"self.metadata.name.size() <= {bound['length']}", "message": message}


def _plural(singular: str) -> str:
    if singular.endswith(("s", "x", "z", "ch", "sh")):
        return singular + "es"
    if singular.endswith("y") and singular[-2:-1] not in "aeiou":
        return singular[:-1] + "ies"
    return singular + "s"


def _columns(given: list[dict[str, Any]], root: Schema) -> list[dict[str, Any]]:
    """The printer columns: the kind's own before Ready, Reason and Age, but those only
    ``kubectl get -o wide`` shows (a priority above 0) after them, where kubectl's own kinds put
    theirs.  Each is of the type of the field its jsonPath names unless it says one: an integer
    field is an integer column, which kubectl aligns and sorts as one."""
    typed = [{"type": _column_type(root, column["jsonPath"]), **column} for column in given]
    wide = [column for column in typed if column.get("priority", 0) > 0]
    narrow = [column for column in typed if column not in wide]
    return [*narrow, *copy.deepcopy([*_COLUMNS, _AGE]), *wide]


_COLUMN_TYPES = {"integer": "integer", "number": "number", "boolean": "boolean"}


def _column_type(root: Schema, json_path: str) -> str:
    """The column type of the field ``json_path`` (``.spec.replicas``) names in ``root``; a path
    through a list, or to no field, is a string column."""
    schema: Schema | None = root
    for step in json_path.lstrip(".").split("."):
        schema = (schema or {}).get("properties", {}).get(step) if step.isidentifier() else None
    if schema is None:
        return "string"
    if schema.get("type") == "string" and schema.get("format") == "date-time":
        return "date"
    return _COLUMN_TYPES.get(str(schema.get("type")), "string")
