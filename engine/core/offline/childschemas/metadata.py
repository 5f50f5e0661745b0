"""Child metadata: the rules the API server applies to a child beyond its schema.

Names, by one table of rules per group and kind (``NAME_RULES``: a DNS subdomain
for most kinds, a DNS label or a path segment for some, shorter for a Job or
CronJob whose name the server copies into longer ones), an Indexed Job's pods'
hostnames, label keys and values (on the child, its templates and its
selectors), annotation keys and their total size; and, as a warning, a
StatefulSet whose pods' names will not fit the label each pod carries.  The
labels Stencil adds itself are checked like the template's (``placement``
bounds the parent-name label on its own; the kind label is the folder's name).

The server checks these in Go code, not in the OpenAPI it serves, so they are
written out here as its validation writes them (``pkg/apis/*/validation``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.core.model.children import placement
from engine.core.offline.childschemas.problems import FieldPath, Problem
from engine.core.offline.childschemas.problems import clip as _clip

LABEL_VALUE_MAX = 63
ANNOTATIONS_MAX_BYTES = 256 * 1024

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


def metadata_problems(api_version: str, kind: str, child: Mapping[str, Any]) -> list[Problem]:
    """What the API server would refuse in ``child``'s names, labels and annotations, and what
    would break once it runs (a StatefulSet's pods' names)."""
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
