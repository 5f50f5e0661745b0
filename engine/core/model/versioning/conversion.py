"""Conversion between a kind's versions, as rules: the hub and the field mappings of each other version.

A kind with ``versions:`` is written against one version, the hub (``parent.apiVersion``): its
templates and status rules read parents at the hub, and the API server asks the engine to convert
every object it reads or writes at another version.  Each other version (a spoke) says how its
fields relate to the hub's, and each mapping holds both ways:

- ``Move``: a field that is another in the hub (renamed, or moved to another object);
- ``Default``: a hub field this version does not have, set on the way to the hub when it is absent;
- ``Computed``: hub fields computed from this version's (``up``) and this version's from the hub's
  (``down``), each a sandboxed expression over the source object: a split, a join, a new form.

Every field a mapping does not name is the same field in both.  A spoke converts to another spoke
through the hub.  What the target version cannot hold (a field its schema does not name, which the
API server would prune, or a value that does not come back) is kept in the annotation
``CONVERSION_DATA`` of the converted object, keyed by the version that held it, and put back when the
object returns to that version, where it is absent: Kubernetes' own convention, so a round trip
loses nothing.  ``round_trip_losses`` is the check ``stencil lint`` runs on examples and generated
objects of each version; conversion itself never changes ``metadata`` beyond that annotation.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core.model.crds import structural
from engine.core.model.errors import StencilError
from engine.core.model.language.expressions import Expression

Schema = dict[str, Any]
FieldPath = tuple[str, ...]
CONVERSION_DATA = "stencil.dev/conversion-data"
# A field written ``path`` in kind.yaml: below spec or status, never metadata (the server's own).
CONVERTED_ROOTS = ("spec", "status")


class ConversionError(StencilError):
    """An object that cannot be converted: named with its version and why, never half converted."""

    reason = "ConversionFailed"
    terminal = True


@dataclass(frozen=True)
class Move:
    hub: FieldPath
    here: FieldPath


@dataclass(frozen=True)
class Default:
    hub: FieldPath
    value: Any


@dataclass(frozen=True)
class Computed:
    up: tuple[tuple[FieldPath, Expression], ...]  # hub fields, from this version's object
    down: tuple[tuple[FieldPath, Expression], ...]  # this version's fields, from the hub's object


FieldMapping = Move | Default | Computed


@dataclass(frozen=True)
class Spoke:
    """A version other than the hub, with its schema and its mappings to the hub."""

    name: str
    schema: Schema
    mappings: tuple[FieldMapping, ...] = ()


@dataclass(frozen=True)
class Conversion:
    """A kind's versions: the hub's name and schema, and every other served version."""

    group: str
    hub: str
    hub_schema: Schema
    spokes: Mapping[str, Spoke] = field(default_factory=dict)

    @property
    def versions(self) -> list[str]:
        return [self.hub, *self.spokes]

    def convert(self, obj: dict[str, Any], api_version: str) -> dict[str, Any]:
        """``obj`` at ``api_version`` (``group/version``), or ``ConversionError`` saying why not."""
        source, target = self._version_of(obj), self._version(api_version)
        if source == target:
            return {**obj, "apiVersion": api_version}
        at_hub = obj if source == self.hub else self._up(obj, self.spokes[source])
        return at_hub if target == self.hub else self._down(at_hub, self.spokes[target])

    def _version_of(self, obj: Any) -> str:
        if not isinstance(obj, dict) or not isinstance(obj.get("apiVersion"), str):
            raise ConversionError("the object has no apiVersion")
        return self._version(obj["apiVersion"])

    def _version(self, api_version: str) -> str:
        group, _, version = api_version.rpartition("/")
        if group != self.group or version not in self.versions:
            known = ", ".join(f"{self.group}/{v}" for v in self.versions)
            raise ConversionError(f"{api_version} is not a version of this kind (it has {known})")
        return version

    def _up(self, obj: dict[str, Any], spoke: Spoke) -> dict[str, Any]:
        """``obj`` of ``spoke`` at the hub, with what the hub cannot hold of it kept aside."""
        data = _kept(obj)
        hub = structural.kept(self.hub_schema, _map_up(obj, spoke, data.pop(self.hub, [])))
        back = structural.kept(spoke.schema, _map_down(hub, spoke, []))
        _keep(data, spoke.name, list(_differences(structural.kept(spoke.schema, obj), back)))
        return _with(hub, f"{self.group}/{self.hub}", data)

    def _down(self, hub: dict[str, Any], spoke: Spoke) -> dict[str, Any]:
        """``hub`` at ``spoke``, with what ``spoke`` cannot hold of it kept aside."""
        data = _kept(hub)
        out = structural.kept(spoke.schema, _map_down(hub, spoke, data.pop(spoke.name, [])))
        back = structural.kept(self.hub_schema, _map_up(out, spoke, []))
        _keep(data, self.hub, list(_differences(structural.kept(self.hub_schema, hub), back)))
        return _with(out, f"{self.group}/{spoke.name}", data)

    def round_trip_losses(self, obj: dict[str, Any]) -> list[tuple[str, str]]:
        """The fields of ``obj`` (as its version keeps it) that do not come back, unchanged, from
        each other version: the version whose mappings lose it (never the hub), and what is lost."""
        source = self._version_of(obj)
        schema = self.hub_schema if source == self.hub else self.spokes[source].schema
        original = structural.kept(schema, obj)
        lost = []
        for other in self.versions:
            if other == source:
                continue
            mapped = other if source == self.hub else source
            there = self.convert(original, f"{self.group}/{other}")
            back = self.convert(there, obj["apiVersion"])
            lost += [
                (mapped, f"{_said(path)} (through {other})") for path, _, _ in _differences(original, back)
            ]
            defaults = {m.hub for m in self._mappings(other) if isinstance(m, Default)}
            added = [path for path in _added(original, back) if path not in defaults]
            lost += [(mapped, f"{_said(path)} (through {other}: added)") for path in added]
            # Kept aside, a value the mappings change comes back too; without, it shows that they do
            # not invert each other (a field the other version has no place for is not that).
            bare = self.convert(_with(there, there["apiVersion"], {}), obj["apiVersion"])
            lost += [
                (mapped, f"{_said(path)} (through {other}: {json.dumps(now)} without what was kept aside)")
                for path, _, now in _differences(original, bare)
                if now is not _ABSENT
            ]
        return lost

    def _mappings(self, version: str) -> tuple[FieldMapping, ...]:
        spoke = self.spokes.get(version)
        return spoke.mappings if spoke is not None else ()


def _map_up(obj: dict[str, Any], spoke: Spoke, restored: list[Any]) -> dict[str, Any]:
    """``obj`` with ``spoke``'s mappings applied toward the hub, then what the hub version kept
    put back where absent, then the defaults."""
    out = copy.deepcopy({k: v for k, v in obj.items() if k in CONVERTED_ROOTS})
    moves = [(m.here, m.hub) for m in spoke.mappings if isinstance(m, Move)]
    computed = [(m.down, m.up) for m in spoke.mappings if isinstance(m, Computed)]
    _apply(obj, out, moves, computed)
    _restore(out, restored)
    for mapping in spoke.mappings:
        if isinstance(mapping, Default) and _get(out, mapping.hub) is _ABSENT:
            _set(out, mapping.hub, copy.deepcopy(mapping.value))
    return _rooted(obj, out)


def _map_down(hub: dict[str, Any], spoke: Spoke, restored: list[Any]) -> dict[str, Any]:
    """``hub`` with ``spoke``'s mappings applied toward ``spoke``, then what it kept put back."""
    out = copy.deepcopy({k: v for k, v in hub.items() if k in CONVERTED_ROOTS})
    moves = [(m.hub, m.here) for m in spoke.mappings if isinstance(m, Move)]
    computed = [(m.up, m.down) for m in spoke.mappings if isinstance(m, Computed)]
    for mapping in spoke.mappings:
        if isinstance(mapping, Default):
            _delete(out, mapping.hub)
    _apply(hub, out, moves, computed)
    _restore(out, restored)
    return _rooted(hub, out)


def _rooted(obj: dict[str, Any], converted: dict[str, Any]) -> dict[str, Any]:
    """``obj`` with its spec and status those of ``converted`` (absent where it has none)."""
    return {**{k: v for k, v in obj.items() if k not in CONVERTED_ROOTS}, **converted}


def _apply(
    source: dict[str, Any],
    out: dict[str, Any],
    moves: list[tuple[FieldPath, FieldPath]],
    computed: list[tuple[tuple[tuple[FieldPath, Expression], ...], tuple[tuple[FieldPath, Expression], ...]]],
) -> None:
    """Every move and computed mapping read from ``source`` and written in ``out``: each value
    is read before any field is removed, so mappings do not see each other's writes."""
    scope = {name: source.get(name) for name in ("spec", "status", "metadata")}
    values: list[tuple[FieldPath, Any]] = [(to, _get(source, here)) for here, to in moves]
    for _, made in computed:
        values += [(path, _evaluated(rule, scope)) for path, rule in made]
    for here, _ in moves:
        _delete(out, here)
    for gone, _ in computed:
        for path, _rule in gone:
            _delete(out, path)
    for path, value in values:
        if value is not _ABSENT and value is not None:
            _set(out, path, value)


def _evaluated(rule: Expression, scope: dict[str, Any]) -> Any:
    try:
        return rule.evaluate(scope)
    except StencilError as failed:
        raise ConversionError(
            failed.message, file=failed.file, line=failed.line, field=failed.field
        ) from None


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT: Any = _Absent()


def _get(obj: Any, path: FieldPath) -> Any:
    for step in path:
        if not isinstance(obj, dict) or step not in obj:
            return _ABSENT
        obj = obj[step]
    return copy.deepcopy(obj)


def _set(obj: dict[str, Any], path: FieldPath, value: Any) -> None:
    for step in path[:-1]:
        below = obj.get(step)
        if not isinstance(below, dict):
            below = obj[step] = {}
        obj = below
    obj[path[-1]] = value


def _delete(obj: dict[str, Any], path: FieldPath) -> None:
    """Remove the field at ``path``, and the objects above it that it leaves empty."""
    parents = []
    for step in path[:-1]:
        below = obj.get(step)
        if not isinstance(below, dict):
            return
        parents.append((obj, step))
        obj = below
    if obj.pop(path[-1], _ABSENT) is _ABSENT:
        return
    for parent, step in reversed(parents):
        if parent[step]:
            break
        del parent[step]


def _restore(out: dict[str, Any], kept: list[Any]) -> None:
    """Put back each field kept aside: where the converted object has none, or where it still has
    the value the conversion gave it when the field was kept (nothing changed it since; a value a
    client wrote since at this version wins)."""
    for entry in kept:
        path, value, now = tuple(entry[0]), entry[1], _get(out, tuple(entry[0]))
        if now is _ABSENT or (len(entry) == 3 and now == entry[2]):
            _set(out, path, value)


def _differences(original: Any, back: Any, path: FieldPath = ()) -> Iterator[tuple[FieldPath, Any, Any]]:
    """Each field of ``original`` (below spec and status) whose value ``back`` does not hold: its
    path, its value and what ``back`` holds there instead (``_ABSENT`` for nothing)."""
    if isinstance(original, dict) and isinstance(back, dict):
        for key, value in original.items():
            if path or key in CONVERTED_ROOTS:
                yield from _differences(value, back.get(key, _ABSENT), (*path, key))
    elif path and original != back:
        yield path, original, back


def _added(original: dict[str, Any], back: dict[str, Any]) -> list[FieldPath]:
    return [path for path, _, _ in _differences(back, original) if _get(original, path) is _ABSENT]


def _kept(obj: dict[str, Any]) -> dict[str, list[Any]]:
    text = ((obj.get("metadata") or {}).get("annotations") or {}).get(CONVERSION_DATA)
    if text is None:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict) or not all(
        isinstance(entries, list) and all(_is_entry(entry) for entry in entries) for entries in data.values()
    ):
        raise ConversionError(f"the annotation {CONVERSION_DATA} is not what conversion writes")
    return data


def _is_entry(entry: Any) -> bool:
    return (
        isinstance(entry, list)
        and len(entry) in (2, 3)
        and isinstance(entry[0], list)
        and len(entry[0]) > 1
        and entry[0][0] in CONVERTED_ROOTS
        and all(isinstance(step, str) for step in entry[0])
    )


def _keep(data: dict[str, list[Any]], version: str, lost: list[tuple[FieldPath, Any, Any]]) -> None:
    """Keep ``lost`` aside for ``version``: each field's path and value, and the value the round
    trip gave it instead, if any, to tell later whether it was changed since."""
    if lost:
        data[version] = [[list(p), v] if b is _ABSENT else [list(p), v, b] for p, v, b in lost]


def _with(obj: dict[str, Any], api_version: str, data: dict[str, list[Any]]) -> dict[str, Any]:
    metadata = dict(obj.get("metadata") or {})
    annotations = {k: v for k, v in (metadata.get("annotations") or {}).items() if k != CONVERSION_DATA}
    if data:
        annotations[CONVERSION_DATA] = json.dumps(data, sort_keys=True, separators=(",", ":"))
    if annotations:
        metadata["annotations"] = annotations
    else:
        metadata.pop("annotations", None)
    return {**obj, "apiVersion": api_version, "metadata": metadata}


def _said(path: FieldPath) -> str:
    return ".".join(path)
