"""Child schemas: would the API server accept a rendered child?  Checked offline, before any apply.

A template can render YAML that parses yet that the API server refuses: a field
at the wrong level (``volumes:`` under a container), a string where an integer
goes, a missing required field, a name that is not a DNS name, a label value
longer than 63 characters.  ``check(child, crds)`` finds these without a
cluster, the way ``kubectl apply --validate=strict`` and the server would:

- **the schema**: a built-in kind's schema is the API server's own, from the
  snapshot of its OpenAPI (``snapshot``, which reads it and adapts it to what
  the server's decoder accepts); a custom kind's is its CRD's ``openAPIV3Schema``
  from the checkout (``engine.core.offline.admission.OfflineCrds.schemas``), closed
  as ``structural.strict`` closes it for the kind's own CRs.  Both are read by
  ``jsonschema`` with the OpenAPI dialect of ``engine.core.model.crds.structural``
  (formats, int32/int64 ranges, RE2 patterns, unique entries of
  ``x-kubernetes-list-type`` lists, unknown fields); each kind's validator is
  built once;
- **the metadata rules** the server applies beyond the schema (``metadata``):
  names by kind (``NAME_RULES``), labels, annotations, and the names a
  StatefulSet's or an Indexed Job's pods will have.

Both report ``Problem``s (``problems``).  This module puts them together and
is where other code finds them: every name the three define that is used
elsewhere is imported from here.

Too-long names made from the parent's.  A child's name and labels are often
made from the parent's name (``{{ name }}-deployment``, ``app: {{ name }}``), so a
child that is fine for a short parent overflows for a long one.
``longest_name(crd_schema)`` is the longest name the parent's CRD allows (253,
or less by its ``metadata.name`` ``maxLength`` or a CEL ``size()`` rule):
rendering a parent with longer and longer names up to that and checking its
children with ``check`` finds where each overflows (a Job's name at 63, a
ConfigMap's at 253), with no guess at how a template builds its names.  That is
how ``stencil lint`` uses this module (``linting.check_long_names``).

A custom kind's child is given its CRD's defaults first, and its CRD's CEL rules
(``engine.core.offline.validation_rules``) run once the schema passes; a rule that
cannot run offline is a warning.  What is not checked: the server's validation
in Go code beyond names, labels and annotations (a container port above 65535,
a container name that is not a DNS label, say).  A child of a kind neither in the snapshot nor among the
CRDs gives one warning and is not checked.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from typing import Any

from jsonschema.protocols import Validator

from engine.core.model.crds import structural
from engine.core.offline import admission, validation_rules
from engine.core.offline.childschemas.metadata import (
    ANNOTATIONS_MAX_BYTES,
    LABEL_VALUE_MAX,
    NAME_RULES,
    NameRule,
    metadata_problems,
    name_rule,
)
from engine.core.offline.childschemas.problems import FieldPath, Problem, Severity
from engine.core.offline.childschemas.problems import clip as _clip
from engine.core.offline.childschemas.snapshot import (
    SNAPSHOT_FILE,
    builtin_predicate,
    builtin_validator,
    snapshot,
    snapshot_version,
)

DEFAULT_NAME_MAX = 253  # a DNS subdomain, the longest name any kind allows


def check(child: Mapping[str, Any], crds: admission.OfflineCrds | None = None) -> list[Problem]:
    """Everything the API server would refuse in ``child``, and what would break once it runs.

    ``crds`` gives the schemas of custom kinds; built-in kinds need nothing.
    Pure, and cheap after the first child of a kind: its validator is cached.
    """
    api_version, kind = child.get("apiVersion"), child.get("kind")
    if not isinstance(api_version, str) or not isinstance(kind, str):
        return [Problem((), "a child needs a string apiVersion and kind")]
    builtin = snapshot().kinds.get(api_version, {}).get(kind)
    schema = crds.schemas.get((api_version, kind)) if crds is not None else None
    if builtin is not None:
        valid = builtin_predicate(builtin)  # the walk that names each problem only when there is one
        broken = valid is None or not valid(child)
        problems = _schema_problems(builtin_validator(builtin), child) if broken else []
    elif schema is not None:
        problems = _custom_problems(schema, child)
    else:
        known = f"a built-in kind of Kubernetes {snapshot().version}"
        return [
            Problem(
                ("kind",),
                f"{kind} ({api_version}) is neither {known} nor a kind of the CRDs given: not checked",
                "warning",
            )
        ]
    return [*problems, *metadata_problems(api_version, kind, child)]


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


def _schema_problems(validator: Validator, child: Mapping[str, Any]) -> list[Problem]:
    problems = []
    for error in validator.iter_errors(child):
        message = error.message
        if error.validator in ("type", "x-kubernetes-int-or-string"):
            message += f": {_clip(error.instance)}"  # the dialect names the type it found, not the value
        problems.append(Problem(tuple(error.absolute_path), message))
    return problems


__all__ = [
    "ANNOTATIONS_MAX_BYTES",
    "DEFAULT_NAME_MAX",
    "LABEL_VALUE_MAX",
    "NAME_RULES",
    "SNAPSHOT_FILE",
    "FieldPath",
    "NameRule",
    "Problem",
    "Severity",
    "check",
    "longest_name",
    "name_rule",
    "snapshot_version",
]
