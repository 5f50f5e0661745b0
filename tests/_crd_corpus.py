"""Objects that tell two CRDs of one kind apart, if anything does: for holding the CRD a kind's
``schema:`` writes to the hand-written one it replaces.

``custom_resources`` starts from sample CRs (a kind's examples) and makes, from the CRD's own
schema, variations of one field each: the field left out, set to null, to a value of each other
type, to the values on either side of each bound it has (``minimum``, ``maxLength``, ``enum``), to
strings that patterns and CEL rules tell apart (addresses, networks, image names, words), and an
unknown field beside it; and names of the lengths that name rules bound. ``statuses`` does the same
for the status, whose fields the engine and the parent's readers write through the status
subresource. The values are not chosen for any one kind: a bound is read from whichever CRD is
given, so a bound one CRD has and the other lacks is probed on both sides by the first.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

Schema = dict[str, Any]
Path = tuple[str | int, ...]

# Values of each JSON type, so that each field meets every type but its own.
_EVERY_TYPE: tuple[Any, ...] = (None, "text", 7, -1, 0, 1.5, 8.0, True, False, [], {}, ["a"], {"a": 1})
# Strings that patterns and rules on names, images, versions, addresses and words tell apart.
_STRINGS: tuple[str, ...] = (
    "",
    " ",
    "a",
    "a b",
    "A",
    "-a",
    "a-",
    "a.",
    "_a",
    "a_b",
    "my-secret",
    "My_Secret",
    "a..b",
    "nginx:1.27",
    "webservice:1.0.0",
    "docker.io/redis:6.0.5",
    "8",
    "8.0",
    "5.7",
    "8.4.3",
    "-8",
    "yellow",
    "a yellow book",
    "Yellow",
    "YELLOW",
    "0.0.0.0/0",
    "10.0.0.0/8",
    "192.168.0.0/16",
    "192.168.0.0/33",
    "192.168.0.0/-1",
    "256.0.0.0/8",
    "01.2.3.4/8",
    "192.168.0.0",
    "192.168.0.1",
    "192.168.255.254",
    "10.0.0.1",
    "10.0.0.256",
    "1.2.3",
    "::1",
    "fe80::/10",
    "1.2.3.4/32",
    "x" * 63,
    "x" * 64,
)
_INTEGERS: tuple[int, ...] = (
    -(2**31) - 1,
    -(2**31),
    -2,
    -1,
    0,
    1,
    2,
    3,
    80,
    65535,
    65536,
    2**31 - 1,
    2**31,
    2**53,
)
_NAME_LENGTHS = (1, 40, 47, 48, 49, 51, 52, 53, 54, 55, 56, 57, 63, 64, 244, 245, 246, 253)


def probes(schema: Schema) -> list[Any]:
    """Values to set a field of ``schema`` to: every type, and its own type's edges."""
    found: list[Any] = [*_EVERY_TYPE, *_STRINGS, *_INTEGERS]
    for bound in ("minimum", "maximum"):
        if isinstance(schema.get(bound), (int, float)):
            found += [schema[bound] - 1, schema[bound], schema[bound] + 1]
    for bound in ("minLength", "maxLength"):
        if isinstance(schema.get(bound), int):
            found += ["x" * max(schema[bound] - 1, 0), "x" * schema[bound], "x" * (schema[bound] + 1)]
    for value in schema.get("enum") or ():
        found += [value, f"{value}x", str(value).lower()]
    if "default" in schema:
        found.append(copy.deepcopy(schema["default"]))
    if schema.get("type") == "array" or "items" in schema:
        item = schema.get("items") or {}
        found += [[value] for value in probes_of_item(item)]
        found += [["a", "a"], ["a", "b"], [{"type": "Ready"}, {"type": "Ready"}]]
    return found


def probes_of_item(schema: Schema) -> list[Any]:
    """Fewer values for the items of a list: every type, and the edges of the item's bounds."""
    return [*_EVERY_TYPE, "a", "", "x" * 64, *(_edges(schema))]


def _edges(schema: Schema) -> list[Any]:
    found: list[Any] = []
    for bound in ("minimum", "maximum"):
        if isinstance(schema.get(bound), (int, float)):
            found += [schema[bound] - 1, schema[bound] + 1]
    return found


def fields(schema: Schema, path: Path = ()) -> Iterator[tuple[Path, Schema]]:
    """Every field under the object ``schema``: its path and its schema, through objects and to the
    first item of a list."""
    for name, field in (schema.get("properties") or {}).items():
        yield (*path, name), field
        yield from fields(field, (*path, name))
    items = schema.get("items")
    if isinstance(items, dict):
        yield (*path, 0), items
        yield from fields(items, (*path, 0))


def _with(obj: Any, path: Path, value: Any) -> Any:
    """A copy of ``obj`` with the field at ``path`` set to ``value`` (made on the way), or left out
    for ``_LEFT_OUT``."""
    changed = copy.deepcopy(obj)
    here = changed
    for position, step in enumerate(path[:-1]):
        made: Any = [] if isinstance(path[position + 1], int) else {}
        if isinstance(here, list):
            while len(here) <= int(step):
                here.append(made)
            if not isinstance(here[int(step)], (dict, list)):
                here[int(step)] = made
        elif not isinstance(here.get(step), (dict, list)):
            here[step] = made
        here = here[step]
    last = path[-1]
    if value is _LEFT_OUT:
        if isinstance(here, dict):
            here.pop(last, None)
        elif isinstance(last, int) and last < len(here):
            here.pop(last)
    elif isinstance(last, int):
        while len(here) <= last:
            here.append(None)
        here[last] = value
    else:
        here[last] = value
    return changed


_LEFT_OUT = object()


def _root(crd: dict[str, Any]) -> Schema:
    schema: Schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
    return schema


def custom_resources(crd: dict[str, Any], samples: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The samples, and the variations of the first one this CRD's spec and names call for, each
    with a label that says what it changes."""
    base = samples[0]
    made: list[tuple[str, dict[str, Any]]] = [(f"sample {s['metadata']['name']}", s) for s in samples]
    made.append(("no spec", _with(base, ("spec",), _LEFT_OUT)))
    made.append(("empty spec", _with(base, ("spec",), {})))
    made += [(f"spec {value!r}", _with(base, ("spec",), value)) for value in _EVERY_TYPE if value != {}]
    made.append(("an unknown top-level field", _with(base, ("extra",), 1)))
    for length in _NAME_LENGTHS:
        made.append((f"a name of {length} characters", _with(base, ("metadata", "name"), "n" * length)))
    spec = _root(crd)["properties"]["spec"]
    for path, schema in fields(spec, ("spec",)):
        made.append((f"{_shown(path)} left out", _with(base, path, _LEFT_OUT)))
        made += [(f"{_shown(path)} = {value!r}", _with(base, path, value)) for value in probes(schema)]
        if schema.get("type") == "object" and "properties" in schema:
            made.append((f"{_shown(path)} with an unknown field", _with(base, (*path, "unknownField"), 1)))
    return made


def statuses(crd: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Statuses to write through the status subresource, each one field changed from a valid one."""
    condition = {
        "type": "Ready",
        "status": "True",
        "observedGeneration": 1,
        "lastTransitionTime": "2024-01-01T00:00:00Z",
        "reason": "Ready",
        "message": "",
    }
    base: dict[str, Any] = {"observedGeneration": 1, "conditions": [condition]}
    made: list[tuple[str, dict[str, Any]]] = [
        ("a valid status", base),
        ("an unknown status field", {"x": {"y": 1}}),
    ]
    made.append(("two conditions of one type", {**base, "conditions": [condition, dict(condition)]}))
    made.append(("two conditions", {**base, "conditions": [condition, {**condition, "type": "Other"}]}))
    status = _root(crd)["properties"]["status"]
    for path, schema in fields(status):
        made.append((f"status.{_shown(path)} left out", _with(base, path, _LEFT_OUT)))
        made += [(f"status.{_shown(path)} = {value!r}", _with(base, path, value)) for value in probes(schema)]
    return made


def _shown(path: Path) -> str:
    return ".".join(str(step) for step in path)
