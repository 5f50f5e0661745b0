"""Child schemas: would the API server accept a rendered child?  Checked offline, before any apply.

A template can render YAML that parses yet that the API server refuses: a field
at the wrong level (``volumes:`` under a container), a string where an integer
goes, a missing required field, a name that is not a DNS name, a label value
longer than 63 characters.  ``check(child, crds)`` finds these without a
cluster, the way ``kubectl apply --validate=strict`` and the server would:

- **the schema**: a built-in kind's schema is the API server's own, from
  ``engine/schemas/kubernetes-openapi.json.gz`` (written by
  ``hack/openapi-snapshot`` from the kube-apiserver the project builds); a custom
  kind's is its CRD's ``openAPIV3Schema`` from the checkout
  (``engine.core.offline.admission.OfflineCrds.schemas``), closed as ``structural.strict``
  closes it for the kind's own CRs.  Both are read by ``jsonschema`` with the
  OpenAPI dialect of ``engine.core.model.structural`` (formats, int32/int64 ranges,
  RE2 patterns, unique entries of ``x-kubernetes-list-type`` lists, unknown
  fields), the snapshot's ``$ref``s through a ``referencing`` registry; each
  kind's validator is built once;
- **the metadata rules** the server applies beyond the schema: names, by one
  table of rules per group and kind (``NAME_RULES``: a DNS subdomain for most
  kinds, a DNS label or a path segment for some, shorter for a Job or CronJob
  whose name the server copies into longer ones), an Indexed Job's pods'
  hostnames, label keys and values (on the child, its templates and its
  selectors), annotation keys and their total size; and, as a warning, a
  StatefulSet whose pods' names will not fit the label each pod carries.

The OpenAPI that Kubernetes serves for its built-in kinds describes Go types
rather than what their decoder accepts, so the snapshot is adapted once, when
it is loaded (``_as_served``): an object with ``properties`` is closed (the
served schemas never say ``additionalProperties: false``, yet server-side apply
refuses an undeclared field); every field is nullable (the decoder reads
``null`` as "not set"); an IntOrString takes either; and a Quantity or a Time,
served as a bare string, gets the pattern the server parses it with.

Too-long names made from the parent's.  A child's name and labels are often
made from the parent's name (``{{ name }}-deployment``, ``app: {{ name }}``), so a
child that is fine for a short parent overflows for a long one.
``longest_name(crd_schema)`` is the longest name the parent's CRD allows (253,
or less by its ``metadata.name`` ``maxLength`` or a CEL ``size()`` rule):
rendering a parent with longer and longer names up to that and checking its
children with ``check`` finds where each overflows (a Job's name at 63, a
ConfigMap's at 253), with no guess at how a template builds its names.  That is
how ``stencil lint`` uses this module (``linting.check_long_names``).  The labels
Stencil adds itself are checked like the template's (``placement`` bounds the
parent-name label on its own; the kind label is the folder's name).

A custom kind's child is given its CRD's defaults first, and its CRD's CEL rules
(``engine.core.offline.validation_rules``) run once the schema passes; a rule that
cannot run offline is a warning.  What is not checked: the server's validation
in Go code beyond names, labels and annotations (a container port above 65535,
a container name that is not a DNS label, say).  A child of a kind neither in the snapshot nor among the
CRDs gives one warning and is not checked.
"""

from __future__ import annotations

import copy
import functools
import gzip
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from jsonschema.protocols import Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from engine.core.model import placement, structural
from engine.core.offline import admission, validation_rules

SNAPSHOT_FILE = "kubernetes-openapi.json.gz"
DEFAULT_NAME_MAX = 253  # a DNS subdomain, the longest name any kind allows
LABEL_VALUE_MAX = 63
ANNOTATIONS_MAX_BYTES = 256 * 1024

FieldPath = tuple[str | int, ...]
Severity = Literal["error", "warning"]
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Problem:
    """One thing the API server would refuse (``error``) or that will break later (``warning``)."""

    path: FieldPath  # keys and list indexes into the child
    message: str
    severity: Severity = "error"

    @property
    def field(self) -> str:
        """The path as an error message shows it: ``spec.template.spec.containers[0].volumes``,
        ``metadata.labels["app.kubernetes.io/name"]``."""
        text = ""
        for part in self.path:
            if isinstance(part, int):
                text += f"[{part}]"
            elif not _PLAIN_KEY.fullmatch(part):  # a label key such as app.kubernetes.io/name
                text += f"[{json.dumps(part)}]"
            else:
                text += f".{part}" if text else part
        return text or "(the object)"

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def check(child: Mapping[str, Any], crds: admission.OfflineCrds | None = None) -> list[Problem]:
    """Everything the API server would refuse in ``child``, and what would break once it runs.

    ``crds`` gives the schemas of custom kinds; built-in kinds need nothing.
    Pure, and cheap after the first child of a kind: its validator is cached.
    """
    api_version, kind = child.get("apiVersion"), child.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return [Problem((), "a child needs a string apiVersion and kind")]
    builtin = _snapshot().kinds.get(api_version, {}).get(kind)
    schema = crds.schemas.get((api_version, kind)) if crds is not None else None
    if builtin is not None:
        problems = _schema_problems(_builtin_validator(builtin), child)
    elif schema is not None:
        problems = _custom_problems(schema, child)
    else:
        known = f"a built-in kind of Kubernetes {_snapshot().version}"
        return [
            Problem(
                ("kind",),
                f"{kind} ({api_version}) is neither {known} nor a kind of the CRDs given: not checked",
                "warning",
            )
        ]
    return [*problems, *_metadata_problems(api_version, kind, child)]


def longest_name(crd_schema: Mapping[str, Any] | None) -> int:
    """The longest ``metadata.name`` a CRD's ``openAPIV3Schema`` lets a custom resource have.

    A CRD may bound the name by ``properties.metadata.properties.name.maxLength``
    or by a CEL rule on the root or on ``metadata`` such as
    ``self.metadata.name.size() <= 52`` or ``size(self.name) < 40``; without
    either it is 253, the longest DNS subdomain.
    """
    limits = [DEFAULT_NAME_MAX]
    schema = crd_schema or {}
    metadata = (schema.get("properties") or {}).get("metadata") or {}
    name = (metadata.get("properties") or {}).get("name") or {}
    if isinstance(name.get("maxLength"), int):
        limits.append(name["maxLength"])
    for owner, subject in ((schema, r"self\.metadata\.name"), (metadata, r"self\.name")):
        for rule in owner.get("x-kubernetes-validations") or ():
            text = rule.get("rule", "") if isinstance(rule, Mapping) else ""
            for match in re.finditer(
                rf"(?:size\(\s*{subject}\s*\)|{subject}\.size\(\))\s*(<=?)\s*(\d+)", text
            ):
                limits.append(int(match[2]) - (match[1] == "<"))
    return min(limits)


# -- the schema ---------------------------------------------------------------------------------

_URI = "urn:stencil:kubernetes-openapi"
_REF = f"{_URI}#/components/schemas/"
_QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
_QUANTITY_TEXT = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
_TIME = "io.k8s.apimachinery.pkg.apis.meta.v1.Time"
_RFC3339 = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"


@dataclass(frozen=True)
class _Snapshot:
    version: str
    kinds: dict[str, dict[str, str]]  # apiVersion -> kind -> schema name
    registry: Registry[Any]


@functools.cache
def _snapshot() -> _Snapshot:
    raw = resources.files("engine").joinpath("schemas", SNAPSHOT_FILE).read_bytes()
    document = json.loads(gzip.decompress(raw))
    schemas = {name: _as_served(schema) for name, schema in document["components"]["schemas"].items()}
    # Quantity and Time are strings the server parses in Go code; the schema says only "string".
    schemas[_QUANTITY] = {"type": ["string", "number"], "nullable": True, "pattern": _QUANTITY_TEXT}
    schemas[_TIME] = {"type": "string", "nullable": True, "pattern": _RFC3339}
    resource = Resource.from_contents({"components": {"schemas": schemas}}, default_specification=DRAFT4)
    return _Snapshot(
        document["kubernetesVersion"], document["kinds"], Registry().with_resource(_URI, resource)
    )


def snapshot_version() -> str:
    """The Kubernetes version the built-in schemas were read from (``v1.34.4``)."""
    return _snapshot().version


@functools.cache
def _builtin_validator(name: str) -> Validator:
    validator: Validator = structural.OpenApiValidator({"$ref": _REF + name}, registry=_snapshot().registry)
    return validator


def _custom_problems(schema: dict[str, Any], child: Mapping[str, Any]) -> list[Problem]:
    """What the API server would refuse in a custom resource: its CRD's schema, then its CEL rules, checked
    on the child with the CRD's defaults filled in, as the server checks it."""
    value = admission.with_defaults(schema, dict(child))
    # Keyed by the schema's text, so an edited CRD gets a new validator and an unchanged one reuses its own.
    problems = _schema_problems(_custom_validator(json.dumps(schema, sort_keys=True)), value)
    if problems:
        return problems  # rules assume the shape the schema promises, as the server's do
    violations, unchecked = validation_rules.check(schema, value)
    return [
        *(Problem(v.path, f"{v.message} (rule: {v.rule}; value: {_clip(v.value)})") for v in violations),
        *(Problem(u.path, str(u), "warning") for u in unchecked),
    ]


@functools.lru_cache(maxsize=256)
def _custom_validator(schema_text: str) -> Validator:
    # A CRD's schema is read as the CRs of its kind are: closed where the server would prune.
    return structural.validator_for(structural.strict(json.loads(schema_text)))


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


def _schema_problems(validator: Validator, child: Mapping[str, Any]) -> list[Problem]:
    problems = []
    for error in validator.iter_errors(child):
        message = error.message
        if error.validator in ("type", "x-kubernetes-int-or-string"):
            message += f": {_clip(error.instance)}"  # the dialect names the type it found, not the value
        problems.append(Problem(tuple(error.absolute_path), message))
    return problems


def _clip(value: Any) -> str:
    return structural.shown(value, limit=60)


# -- the metadata rules -----------------------------------------------------------------------

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS1035_LABEL = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]")


@dataclass(frozen=True)
class NameRule:
    """The names the API server accepts for one kind: their form, their longest length, and why."""

    form: str  # as a message says it: "a DNS label (lowercase letters, digits and '-')"
    pattern: re.Pattern[str] | None  # None: a path segment, checked by its own rule
    max_length: int | None
    why: str = ""  # why the kind's names are held to more than a DNS subdomain

    def problems(self, subject: str, name: str, path: FieldPath) -> list[Problem]:
        """What is wrong with ``name`` as ``subject`` ("a Job's name") under this rule."""
        why = f": {self.why}" if self.why else ""
        problems = []
        if self.max_length is not None and len(name) > self.max_length:
            message = f"{subject} is at most {self.max_length} characters{why}; this one has {len(name)}"
            problems.append(Problem(path, f"{message}: {_clip(name)}"))
        if self.pattern is not None:
            valid = bool(self.pattern.fullmatch(name))
        else:
            valid = name not in (".", "..") and "/" not in name and "%" not in name
        if not valid:
            problems.append(Problem(path, f"{subject} must be {self.form}{why}; this one is {_clip(name)}"))
        return problems


_SUBDOMAIN_FORM = "a DNS subdomain (lowercase letters, digits, '-' and '.')"
_LABEL_FORM = "a DNS label (lowercase letters, digits and '-')"
_SUBDOMAIN = NameRule(_SUBDOMAIN_FORM, _DNS_SUBDOMAIN, 253)
_NAMESPACE = NameRule(_LABEL_FORM, _DNS_LABEL, 63, "it is part of the DNS names of its Services")
_PATH_SEGMENT = NameRule("a path segment (not '.' or '..', no '/' or '%')", None, None)

# The one table of names the API server holds to more than a DNS subdomain of 253, by (group, kind)
# ("" is the core group), as its validation does in Kubernetes v1.34 (pkg/apis/*/validation): the
# name function each kind passes to ValidateObjectMeta, and the lengths its Create checks add.
NAME_RULES: dict[tuple[str, str], NameRule] = {
    ("", "Service"): NameRule(
        "a DNS label that starts with a letter (RFC 1035)",
        _DNS1035_LABEL,
        63,
        "it is a DNS name in the cluster (<name>.<namespace>.svc)",
    ),
    ("", "Namespace"): _NAMESPACE,
    ("apps", "StatefulSet"): NameRule(_LABEL_FORM, _DNS_LABEL, 63, "its pods' hostnames are made from it"),
    ("batch", "Job"): NameRule(_SUBDOMAIN_FORM, _DNS_SUBDOMAIN, 63, "its pods carry it in a label"),
    ("batch", "CronJob"): NameRule(
        _SUBDOMAIN_FORM,
        _DNS_SUBDOMAIN,
        52,
        "its Jobs are named after it with an 11-character suffix, and a Job's name is at most 63",
    ),
    **{(placement.RBAC_GROUP, kind): _PATH_SEGMENT for kind in placement.RBAC_KINDS},
}


def name_rule(api_version: str, kind: str) -> NameRule:
    """The rule the API server applies to the names of ``kind`` in ``api_version`` (any version of its
    group): its entry in ``NAME_RULES``, else a DNS subdomain of at most 253 characters."""
    return NAME_RULES.get((api_version.rpartition("/")[0], kind), _SUBDOMAIN)


# Labels Stencil puts on every child whose value is not the template's (placement bounds the parent's name).
_ENGINE_LABELS = {placement.KIND_LABEL: "the kind folder's name"}


def _metadata_problems(api_version: str, kind: str, child: Mapping[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    metadata = child.get("metadata")
    if isinstance(metadata, Mapping):
        name = metadata.get("name")
        if isinstance(name, str):
            problems += name_rule(api_version, kind).problems(f"a {kind}'s name", name, ("metadata", "name"))
        namespace = metadata.get("namespace")
        if isinstance(namespace, str) and namespace:
            problems += _NAMESPACE.problems("a namespace's name", namespace, ("metadata", "namespace"))
    problems += _walk_metadata(child, ())
    if kind in ("Service", "ReplicationController") and api_version == "v1":
        selector = (child.get("spec") or {}).get("selector")
        if isinstance(selector, Mapping):
            problems += _label_problems(selector, ("spec", "selector"))
    if (api_version, kind) == ("apps/v1", "StatefulSet"):
        problems += _statefulset_pod_names(child)
    if (api_version, kind) == ("batch/v1", "Job"):
        problems += _indexed_job_hostnames(child)
    return problems


def _walk_metadata(value: Any, path: FieldPath) -> list[Problem]:
    """Label and annotation problems of every object metadata and label selector inside ``value``.

    Pod templates, job templates and claim templates carry metadata of their
    own, which the server checks as it does the child's.
    """
    problems: list[Problem] = []
    if isinstance(value, Mapping):
        for key, item in value.items():
            here = (*path, key)
            if key == "metadata" and isinstance(item, Mapping):
                if isinstance(item.get("labels"), Mapping):
                    problems += _label_problems(item["labels"], (*here, "labels"))
                if isinstance(item.get("annotations"), Mapping):
                    problems += _annotation_problems(item["annotations"], (*here, "annotations"))
            elif key == "matchLabels" and isinstance(item, Mapping):
                problems += _label_problems(item, here)
            else:
                problems += _walk_metadata(item, here)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            problems += _walk_metadata(item, (*path, index))
    return problems


def _label_problems(labels: Mapping[str, Any], path: FieldPath) -> list[Problem]:
    problems: list[Problem] = []
    for key, value in labels.items():
        here = (*path, key)
        problems += _key_problems(key, here)
        if not isinstance(value, str):
            continue  # the schema reports the type
        source = _ENGINE_LABELS.get(key)
        hint = f" (Stencil sets it to {source}, so that must be shorter)" if source else ""
        if len(value) > LABEL_VALUE_MAX:
            problems.append(
                Problem(
                    here,
                    f"a label value must be at most 63 characters, not {len(value)}{hint}: {_clip(value)}",
                )
            )
        if not _LABEL_VALUE.fullmatch(value):
            problems.append(
                Problem(
                    here,
                    "a label value must be letters, digits, '-', '_' and '.', beginning and ending with a "
                    f"letter or digit{hint}: {_clip(value)}",
                )
            )
    return problems


def _annotation_problems(annotations: Mapping[str, Any], path: FieldPath) -> list[Problem]:
    problems: list[Problem] = []
    size = 0
    for key, value in annotations.items():
        # The server checks annotation keys as lowercase qualified names.
        problems += _key_problems(key.lower(), (*path, key), shown=key)
        size += len(key.encode()) + (len(value.encode()) if isinstance(value, str) else 0)
    if size > ANNOTATIONS_MAX_BYTES:
        problems.append(
            Problem(
                path, f"annotations may total at most 256 KiB ({ANNOTATIONS_MAX_BYTES} bytes), not {size}"
            )
        )
    return problems


def _key_problems(key: str, path: FieldPath, *, shown: str | None = None) -> list[Problem]:
    """A label or annotation key: an optional DNS-subdomain prefix and '/', then a name of at most 63."""
    prefix, slash, name = key.rpartition("/")
    shown = _clip(shown if shown is not None else key)
    problems = []
    if slash and not (prefix and len(prefix) <= 253 and _DNS_SUBDOMAIN.fullmatch(prefix)):
        problems.append(
            Problem(path, f"a key's prefix must be a DNS subdomain of at most 253 characters: {shown}")
        )
    if len(name) > 63 or not _QUALIFIED_NAME.fullmatch(name):
        problems.append(
            Problem(
                path,
                "a key's name (after any prefix/) must be 1 to 63 letters, digits, '-', '_' and '.', "
                f"beginning and ending with a letter or digit: {shown}",
            )
        )
    return problems


def _statefulset_pod_names(child: Mapping[str, Any]) -> list[Problem]:
    """A StatefulSet is accepted whatever its name's length, but its pods carry their own names as a
    label (``statefulset.kubernetes.io/pod-name``), so a pod named past 63 characters is refused."""
    name = (child.get("metadata") or {}).get("name")
    spec = child.get("spec") or {}
    replicas = spec.get("replicas", 1)
    start = (spec.get("ordinals") or {}).get("start", 0)
    if not isinstance(name, str) or not isinstance(replicas, int) or not isinstance(start, int):
        return []
    pod = f"{name}-{start + max(replicas, 1) - 1}"
    if len(pod) <= LABEL_VALUE_MAX:
        return []
    return [
        Problem(
            ("metadata", "name"),
            f"its pods' names ({pod[:20]}…, {len(pod)} characters) exceed 63, and a pod carries its name "
            "as a label: the StatefulSet is accepted but its pods are refused",
            "warning",
        )
    ]


def _indexed_job_hostnames(child: Mapping[str, Any]) -> list[Problem]:
    """An Indexed Job's pods are named and hostnamed ``<name>-<index>``, so the API server refuses a Job
    whose last index would not make a DNS label (a dot in the name, or past 63 characters)."""
    name = (child.get("metadata") or {}).get("name")
    spec = child.get("spec") or {}
    completions = spec.get("completions")
    if spec.get("completionMode") != "Indexed" or not isinstance(name, str):
        return []
    if not isinstance(completions, int) or completions < 1:
        return []
    hostname = f"{name}-{completions - 1}"
    if len(hostname) <= LABEL_VALUE_MAX and _DNS_LABEL.fullmatch(hostname):
        return []
    return [
        Problem(
            ("metadata", "name"),
            f"an Indexed Job's pods' hostnames are <name>-<index>, each a DNS label of at most 63 "
            f"characters; its last, {_clip(hostname)} ({len(hostname)} characters), is not",
        )
    ]
