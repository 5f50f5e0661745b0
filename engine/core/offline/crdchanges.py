"""What a kind's new CRD would do to the objects the installed one stored: ``stencil plan``'s API check.

``compare(installed, new)`` reads two CustomResourceDefinitions as dicts and returns a
``Finding`` for every change that matters to objects already in etcd, version by version
(a version compared with the version of the same name):

- **refused**: the change makes stored objects lose data or no longer validate: a field
  removed (the API server prunes it from every stored object it reads, unless the schema
  keeps unknown fields there), a type narrowed (``number`` to ``integer``, int-or-string to
  ``integer``, an object to a string), a field newly required with no default, an enum or a
  bound narrowed, a pattern or a format added or changed, ``nullable`` taken away, a list
  made a set or a map, a version dropped while ``status.storedVersions`` still holds it;
- **warning**: stored objects are still read as they are, but a write must now satisfy
  something new (a new ``x-kubernetes-validations`` rule, a changed ``allOf``/``anyOf``),
  or clients of a version lose it (no longer served);
- **note**: the storage version moved, which is how an API evolves.

Additive changes (a new optional field, an enum widened, a bound loosened, a new version)
say nothing.  Pure: no I/O; ``stencil plan`` (``engine.tools.apicheck``) finds the two CRDs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

Schema = dict[str, Any]

REFUSED = "refused"
WARNING = "warning"
NOTE = "note"
_ORDER = {REFUSED: 0, WARNING: 1, NOTE: 2}

# What to do instead of a refused change, said once after them.
ADD_A_VERSION = (
    "a refused change breaks objects already stored: keep the version as it is and add a new one "
    "(a new name under spec.versions) with the change, then `stencil migrate` the stored objects to it"
)


@dataclass(frozen=True)
class Finding:
    """One change of one version's API: where (``path``, a field such as ``spec.replicas``;
    empty for the version itself), what changed, and how bad it is (``severity``)."""

    version: str
    path: str
    what: str
    severity: str

    @property
    def refused(self) -> bool:
        return self.severity == REFUSED

    def __str__(self) -> str:
        where = f"{self.version} {self.path}" if self.path else self.version
        return f"{where}: {self.what}"


def compare(installed: Schema, new: Schema) -> list[Finding]:
    """Every change from the ``installed`` CRD to the ``new`` one that stored objects would feel,
    refusals first, then by version and field."""
    found: list[Finding] = []
    old_spec, new_spec = installed.get("spec") or {}, new.get("spec") or {}
    if old_spec.get("scope") and new_spec.get("scope") and old_spec["scope"] != new_spec["scope"]:
        found.append(
            Finding(
                "",
                "",
                f"scope {old_spec['scope']} -> {new_spec['scope']}: the API server refuses it (scope is "
                "immutable); a new scope is a new CRD",
                REFUSED,
            )
        )
    olds, news = _versions(old_spec), _versions(new_spec)
    stored = (installed.get("status") or {}).get("storedVersions") or [
        name for name, version in olds.items() if version.get("storage")
    ]
    for name, version in olds.items():
        if name not in news:
            found.append(_dropped(name, version, name in stored))
            continue
        if version.get("served", True) and not news[name].get("served", True):
            what = "no longer served: clients that read or write it get 404 Not Found"
            found.append(Finding(name, "", what, WARNING))
        add = _adder(found, name)
        _compare(_schema_of(version), _schema_of(news[name]), "", add)
    found += _storage(olds, news, stored)
    return sorted(found, key=lambda f: (_ORDER[f.severity], f.version))


def refusals(findings: list[Finding]) -> list[Finding]:
    return [finding for finding in findings if finding.refused]


def _versions(spec: Schema) -> dict[str, Schema]:
    return {v["name"]: v for v in spec.get("versions") or () if isinstance(v, dict) and "name" in v}


def _schema_of(version: Schema) -> Schema:
    schema = (version.get("schema") or {}).get("openAPIV3Schema")
    return schema if isinstance(schema, dict) else {"x-kubernetes-preserve-unknown-fields": True}


def _dropped(name: str, version: Schema, stored: bool) -> Finding:
    if stored:
        what = (
            "removed from the CRD while status.storedVersions still holds it: the API server refuses "
            "the CRD; `stencil migrate` the stored objects to the storage version and take this one out "
            "of status.storedVersions first"
        )
        return Finding(name, "", what, REFUSED)
    if version.get("served", True):
        return Finding(name, "", "removed: clients that use it get 404 Not Found", WARNING)
    return Finding(name, "", "removed (it was not served, and no object is stored in it)", NOTE)


def _storage(olds: dict[str, Schema], news: dict[str, Schema], stored: list[str]) -> list[Finding]:
    before = next((name for name, v in olds.items() if v.get("storage")), None)
    after = next((name for name, v in news.items() if v.get("storage")), None)
    if before is None or after is None or before == after:
        return []
    what = (
        f"the storage version moves from {before} to {after}: objects written from now on are stored as "
        f"{after}, those stored before stay {', '.join(stored) or before} until rewritten; `stencil migrate` "
        f"rewrites them, so that {before} can leave status.storedVersions and later the CRD"
    )
    return [Finding(after, "", what, NOTE)]


def _adder(found: list[Finding], version: str) -> Any:
    def add(severity: str, path: str, what: str) -> None:
        found.append(Finding(version, path or "(the object)", what, severity))

    return add


# -- one schema against the other, field by field -------------------------------------------------

_ALL = frozenset({"integer", "number", "string", "boolean", "array", "object"})


def _accepts(schema: Schema) -> frozenset[str]:
    """The JSON types a schema's values may have (``number`` for the non-integers)."""
    if schema.get("x-kubernetes-int-or-string"):
        return frozenset({"integer", "string"})
    kind = schema.get("type")
    if kind is None:
        return _ALL
    if kind == "number":
        return frozenset({"integer", "number"})
    return frozenset({kind})


def _type_name(schema: Schema) -> str:
    if schema.get("x-kubernetes-int-or-string"):
        return "int-or-string"
    return str(schema.get("type") or "any")


def _compare(old: Schema, new: Schema, path: str, add: Any) -> None:
    lost = _accepts(old) - _accepts(new)
    if lost:
        add(
            REFUSED,
            path,
            f"type {_type_name(old)} -> {_type_name(new)}: stored {' and '.join(sorted(lost))} values no "
            f"longer validate: clients reading {_type_name(new)} fail on them, "
            "and a write may not set a new one",
        )
        return  # what is below a type that changed is moot
    if old.get("nullable") and not new.get("nullable"):
        add(REFUSED, path, "no longer nullable: a stored null no longer validates, and the server drops it")
    _enum(old, new, path, add)
    _bounds(old, new, path, add)
    _text(old, new, path, add)
    _lists(old, new, path, add)
    _rules(old, new, path, add)
    _object(old, new, path, add)
    old_items, new_items = old.get("items"), new.get("items")
    if isinstance(old_items, dict) and isinstance(new_items, dict):
        _compare(old_items, new_items, f"{path}[*]", add)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _enum(old: Schema, new: Schema, path: str, add: Any) -> None:
    after = new.get("enum")
    if not isinstance(after, list):
        return
    before = old.get("enum")
    if not isinstance(before, list):
        add(
            REFUSED,
            path,
            f"an enum now ({', '.join(map(_json, after))}): stored values outside it no longer validate",
        )
        return
    gone = [value for value in before if _json(value) not in {_json(v) for v in after}]
    if gone:
        add(
            REFUSED,
            path,
            f"enum value {', '.join(map(_json, gone))} removed: stored objects holding it no longer validate",
        )


_UPPER = ("maxLength", "maxItems", "maxProperties", "maximum")
_LOWER = ("minLength", "minItems", "minProperties", "minimum")
_EXCLUSIVE = {"maximum": "exclusiveMaximum", "minimum": "exclusiveMinimum"}


def _bounds(old: Schema, new: Schema, path: str, add: Any) -> None:
    for key, sign in [*((k, 1) for k in _UPPER), *((k, -1) for k in _LOWER)]:
        after = new.get(key)
        if not isinstance(after, int | float):
            continue
        before = old.get(key)
        exclusive = _EXCLUSIVE.get(key)
        made_exclusive = bool(exclusive and new.get(exclusive) and not old.get(exclusive))
        if not isinstance(before, int | float):
            said = f"{key} {after} added"
        elif (after - before) * sign < 0:
            said = f"{key} {'lowered' if sign > 0 else 'raised'} from {before} to {after}"
        elif after == before and made_exclusive:
            said = f"{key} {after} made exclusive"
        else:
            continue
        add(REFUSED, path, f"{said}: stored values beyond it no longer validate")
    after = new.get("multipleOf")
    before = old.get("multipleOf")
    if isinstance(after, int | float) and after and (not isinstance(before, int | float) or before % after):
        said = f"multipleOf {after} added" if before is None else f"multipleOf {before} -> {after}"
        add(REFUSED, path, f"{said}: stored values that are not multiples no longer validate")


# Formats that only widen what the one before took: the integer and number widths.
_WIDER = {("int32", "int64"), ("float", "double")}


def _text(old: Schema, new: Schema, path: str, add: Any) -> None:
    after, before = new.get("pattern"), old.get("pattern")
    if after is not None and after != before:
        said = f"pattern {after!r} added" if before is None else f"pattern {before!r} -> {after!r}"
        add(REFUSED, path, f"{said}: stored values that do not match no longer validate")
    after, before = new.get("format"), old.get("format")
    if (
        after is not None
        and after != before
        and (before, after) not in _WIDER
        and not (before is None and after in ("int64", "double"))
    ):
        said = f"format {after} added" if before is None else f"format {before} -> {after}"
        add(REFUSED, path, f"{said}: stored values not of that format no longer validate")


def _lists(old: Schema, new: Schema, path: str, add: Any) -> None:
    if new.get("uniqueItems") and not old.get("uniqueItems"):
        add(REFUSED, path, "items made unique: a stored list holding one twice no longer validates")
    before, after = old.get("x-kubernetes-list-type", "atomic"), new.get("x-kubernetes-list-type", "atomic")
    if after != before and after != "atomic":
        what = "duplicate items" if after == "set" else "two items of one key, or an item missing a key"
        add(REFUSED, path, f"list type {before} -> {after}: a stored list with {what} no longer validates")
    elif after == "map" and old.get("x-kubernetes-list-map-keys") != new.get("x-kubernetes-list-map-keys"):
        keys = ", ".join(new.get("x-kubernetes-list-map-keys") or ())
        add(REFUSED, path, f"list map keys now {keys}: a stored list may hold two items of one key")
    for key in ("allOf", "anyOf", "oneOf", "not"):
        if key in new and _json(new[key]) != _json(old.get(key)):
            add(
                WARNING,
                path,
                f"{key} {'changed' if key in old else 'added'}: stored values may no longer validate",
            )


def _rules(old: Schema, new: Schema, path: str, add: Any) -> None:
    kept = {rule.get("rule") for rule in old.get("x-kubernetes-validations") or () if isinstance(rule, dict)}
    for rule in new.get("x-kubernetes-validations") or ():
        if isinstance(rule, dict) and rule.get("rule") not in kept:
            add(
                WARNING,
                path,
                f"a new validation rule {rule.get('rule')!r}: stored objects are still read as they are, "
                "but a write that changes this field must satisfy it",
            )


_PLAIN = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


def _join(path: str, name: str) -> str:
    if not _PLAIN.fullmatch(name):
        return f"{path}[{json.dumps(name)}]"
    return f"{path}.{name}" if path else name


def _entries(schema: Schema) -> Schema | None:
    """The schema of a map's entries (``additionalProperties``), ``{}`` for any; None: not a map."""
    entries = schema.get("additionalProperties")
    if entries is True:
        return {"x-kubernetes-preserve-unknown-fields": True}
    return entries if isinstance(entries, dict) else None


def _object(old: Schema, new: Schema, path: str, add: Any) -> None:
    before: Schema = old.get("properties") or {}
    after: Schema = new.get("properties") or {}
    old_map, new_map = _entries(old), _entries(new)
    keeps = bool(new.get("x-kubernetes-preserve-unknown-fields"))
    for name, field in before.items():
        here = _join(path, name)
        if name in after:
            _compare(field, after[name], here, add)
        elif new_map is not None:
            _compare(field, new_map, here, add)  # still kept, as an entry of the map
        elif not keeps:
            add(REFUSED, here, "removed: the API server prunes it from every stored object it reads")
    if old_map is not None:
        if new_map is not None:
            _compare(old_map, new_map, f"{path}.<key>", add)
        elif not keeps:
            names = ", ".join(after) or "none"
            add(REFUSED, path, f"no longer a map: every stored key but those it names ({names}) is pruned")
        for name, field in after.items():
            if name not in before:
                _compare(old_map, field, _join(path, name), add)
    elif old.get("x-kubernetes-preserve-unknown-fields") and not keeps:
        if new_map is not None:
            _compare({"x-kubernetes-preserve-unknown-fields": True}, new_map, f"{path}.<key>", add)
        elif old.get("type") in (None, "object") and new.get("type") in (None, "object"):
            add(
                REFUSED, path, "no longer keeps unknown fields: every stored field it does not name is pruned"
            )
    _required(old, new, path, add)


def _required(old: Schema, new: Schema, path: str, add: Any) -> None:
    before = set(old.get("required") or ())
    fields: Schema = new.get("properties") or {}
    known: Schema = old.get("properties") or {}
    for name in new.get("required") or ():
        if name in before or "default" in (fields.get(name) or {}):
            continue
        if name in known or _entries(old) is not None or old.get("x-kubernetes-preserve-unknown-fields"):
            what = "now required, with no default: a stored object without it no longer validates"
        else:
            what = "a new required field with no default: no stored object has it, so none validates"
        add(REFUSED, _join(path, name), what)


# -- saying it -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """What ``stencil plan`` says of a kind's API: its CRD (``crd``, by name), what that was compared
    with (``against``: the cluster's CRD, or a file), and the findings."""

    crd: str
    against: str
    findings: tuple[Finding, ...]

    @property
    def refused(self) -> bool:
        return any(finding.refused for finding in self.findings)


def as_json(report: Report) -> dict[str, Any]:
    """The report as ``stencil plan --format json`` prints it under ``api`` (``docs/plan.md``)."""
    return {
        "crd": report.crd,
        "against": report.against,
        "refused": len(refusals(list(report.findings))),
        "findings": [
            {"severity": f.severity, "version": f.version, "path": f.path, "what": f.what}
            for f in report.findings
        ],
    }


def text(report: Report) -> list[str]:
    """The lines ``stencil plan`` prints before its parents: the CRD, what it was compared with, each
    finding, and what to do instead of a refused change."""
    head = f"API of {report.crd} against {report.against}: "
    if not report.findings:
        return [head + "no change stored objects would feel"]
    counts = {s: sum(f.severity == s for f in report.findings) for s in _ORDER}
    said = [f"{n} {s}" if s == REFUSED or n == 1 else f"{n} {s}s" for s, n in counts.items() if n]
    lines = [head + ", ".join(said)]
    lines += [f"  {f.severity}: {f}" for f in report.findings]
    if report.refused:
        lines.append(f"  ({ADD_A_VERSION})")
    return lines
