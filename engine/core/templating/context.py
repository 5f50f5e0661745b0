"""The template context: the parent and its observed children as a template reads them.

The template context wraps the parent and its observed children in tracked
views, so an undefined value is reported by the CR field it came from
(``spec.replicas``), not by Jinja's internal name; and a name a template reads
wrongly (a status rule's) is said to be so.  The parent's ``namespace`` is also Jinja's
``namespace()``, which it would hide.  ``engine.core.templating.sandbox`` puts this
context into its environment; tokens turn the views back into data
(``engine.core.templating.tokens``).
"""

from __future__ import annotations

import collections
import functools
import inspect
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from jinja2 import StrictUndefined
from jinja2.exceptions import UndefinedError
from jinja2.utils import Namespace

from engine.core.jinja import missing
from engine.core.model.language import expressions


def join_path(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}" if path else key
    return f"{path}[{key!r}]"


class View:
    """A read-only view of data from the CR that knows its path, for "spec.replicas is not set"."""

    __slots__ = ("_data", "_path")

    def __init__(self, data: Any, path: str) -> None:
        self._data = data
        self._path = path

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        return bool(self._data == untracked(other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._data)


class Tracked(View, Mapping[str, Any]):
    """A mapping of the CR (or of a child) as templates see it."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        return _track(self._data[key], join_path(self._path, key))

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)


class _TrackedList(View, Sequence[Any]):
    """A list of the CR (or of a child) as templates see it."""

    __slots__ = ()

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return _TrackedList(self._data[index], self._path)
        return _track(self._data[index], join_path(self._path, index))


def _track(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return Tracked(value, path)
    if isinstance(value, list):
        return _TrackedList(value, path)
    return value


def untracked(value: Any) -> Any:
    """``value`` itself if it is no view of the CR, else the data the view shows."""
    return value._data if isinstance(value, View) else value


class MissingField(UndefinedError):
    """A template read a field of the CR (or of a child) that is not there.

    ``reason`` says why, where "not set" would mislead (``children.service``: no
    kind is called that, and no template of that id rendered before this one).
    """

    def __init__(self, message: str | None = None, *, field: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.reason = reason


class FieldUndefined(StrictUndefined):
    """``StrictUndefined`` that, for a missing field of a tracked object, says which field, and
    that equals none."""

    __slots__ = ()

    def __init__(
        self,
        hint: str | None = None,
        obj: Any = missing,
        name: str | None = None,
        exc: type[UndefinedError] = UndefinedError,
    ) -> None:
        # Only a plain miss of a field or an index: the sandbox refusing an attribute passes its
        # own hint, and a list has no fields (``spec.ports.append`` is a method, not a CR field).
        if hint is None and (
            (isinstance(obj, Tracked) and name is not None)
            or (isinstance(obj, _TrackedList) and isinstance(name, int))
        ):
            field = join_path(obj._path, name)
            hint = f"{field} is not set"
            reason = missing_child(name) if obj._path == "children" and isinstance(name, str) else None
            reason = NOT_REFERENCED if obj._path == "references" else reason
            exc = functools.partial(MissingField, field=field, reason=reason)  # type: ignore[assignment]
        elif hint is None and obj is missing and isinstance(name, str):
            hint = unknown_name(name, f"{name!r} is undefined")
        super().__init__(hint, obj, name, exc)

    # Missing data reads as none: compared with none it answers as None would (and ``is none``
    # is ``expressions.reads_as_none``); printed, or compared with anything else, it is an error.
    # (StrictUndefined types its comparisons as the method that fails: hence the ignores.)
    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        if expressions.reads_as_none(other):
            return True
        self._fail_with_undefined_error()

    def __ne__(self, other: object) -> bool:  # type: ignore[override]
        return not self.__eq__(other)

    __hash__ = StrictUndefined.__hash__  # type: ignore[assignment]


# A template reads a reference as the engine found it in the cluster, or offline among the kind's
# fixtures and --observed objects (``engine.core.door``): an id read here is none of those read.
NOT_REFERENCED = (
    "no reference of kind.yaml has this id: templates read references.<id> for each id under "
    "references: in kind.yaml"
)


def missing_child(key: str) -> str:
    """Why ``children.<key>`` is not there in a template: ``key`` is a kind not observed, or an id of
    no template rendered before this one (a key computed at run time makes no edge to wait on)."""
    if key[:1].isupper():
        return (
            f"no {key} is observed (yet); test it with `is defined`, or read `child('{key}', name)`, "
            "none until it exists"
        )
    return (
        f"no template with the id {key!r} is rendered before this one; spell the id out "
        "(`children.my-id` or `children['my-id']`) so that this template waits for it, or read a "
        "child by kind and name: `child('Service', 'my-svc')`, none until it exists"
    )


def unknown_name(name: str, said: str, hint: str = "") -> str:
    """``said`` (that a template reads ``name``, which it has not) and what a template reads instead:
    a status rule's name is said to be one, else ``hint`` (a "did you mean") comes first."""
    if name in _RULE_NAMES:
        return f"{said} in a template: `{name}` is for status rules (kind.yaml); a template reads {_READS}"
    return f"{said}{hint} (a template reads {_READS})"


def template_context(
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    by_id: dict[str, Any] | None = None,
    references: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The names a template reads.  ``children`` holds the observed children by kind and name
    (``children.Service['x']``) and, beside them, ``by_id``: the observed child of each template
    rendered so far, by its id (``shapes.observed_by_id``), which rendering fills in as it goes.
    ``references`` are what the kind's references read (``references.<id>``: the object, a list
    for a selector, none for a missing optional one)."""
    metadata = parent.get("metadata") or {}
    by_kind: dict[str, dict[str, Any]] = {}
    for obj in observed:
        name = str((obj.get("metadata") or {}).get("name", ""))
        by_kind.setdefault(str(obj.get("kind", "")), {})[name] = obj
    # Kinds are CamelCase and ids lower-case, so the two never hide each other.
    children = Tracked(collections.ChainMap(by_kind, {} if by_id is None else by_id), "children")

    def child(kind: str, name: str) -> Any:
        """The observed child of this kind and name, or None."""
        found = by_kind.get(kind, {}).get(name)
        return None if found is None else _track(found, f"child({kind!r}, {name!r})")

    return {
        "parent": Tracked(parent, "parent"),
        "spec": Tracked(parent.get("spec") or {}, "spec"),
        "metadata": Tracked(metadata, "metadata"),
        "name": metadata.get("name", ""),
        "namespace": ParentNamespace(metadata.get("namespace") or ""),
        "children": children,
        "child": child,
        "references": Tracked(dict(references or {}), "references"),
    }


class ParentNamespace(str):
    """The parent's namespace as templates read it: a string that, called, is Jinja's
    ``namespace()`` (which the name would hide), the object whose attributes a loop may set:
    ``{% set found = namespace(total=0) %}``."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Namespace:
        return Namespace(*args, **kwargs)


def _read(name: str, value: Any) -> str:
    function = callable(value) and not isinstance(value, str)  # the namespace, callable, is a name
    return f"{name}({', '.join(inspect.signature(value).parameters)})" if function else name


_CONTEXT = template_context({}, ())
# What a template reads ("parent, spec, ..., child(kind, name)"), and the names only status rules read.
_READS = ", ".join(_read(name, value) for name, value in _CONTEXT.items())
_RULE_NAMES = expressions.CONTEXT_NAMES - frozenset(_CONTEXT)
