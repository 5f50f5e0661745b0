"""The Jinja sandbox templates run in: values become tokens, every step watches the clock.

Every ``{{ ... }}`` goes through the environment's ``finalize``, which records the
value in the current ``Run`` and writes an opaque token instead
(``stencilv<nonce>x<n>z``, with a random nonce per render so no value can forge
one); ``engine.core.rendering`` substitutes the values back after YAML parsing.
The filters (``tojson``, ``sha256``...) resolve tokens, so a checksum of a
``{% set %}`` block hashes the real values.

The sandbox is Jinja's immutable one with a clock on every attribute access,
item, call, loop iteration and output chunk, bounded ``*``/``**``, and a budget of
output characters (``Run``), so neither a runaway template nor a huge CR value can
stall or flood the engine.  The template context wraps the parent and its observed
children in tracked views, so an undefined value is reported by the CR field it
came from (``spec.replicas``), not by Jinja's internal name.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import re
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from jinja2 import BaseLoader, Environment, StrictUndefined, TemplateNotFound, nodes, pass_context
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import UndefinedError
from jinja2.runtime import Context, Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import missing

from engine.core import kinds

# -- values and tokens ------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """Per template: wall-clock seconds, and characters of output (text plus interpolated values)."""

    seconds: float = 1.0
    output_chars: int = 1 << 20


DEFAULT_LIMITS = Limits()


class OverBudget(Exception):
    """A template ran out of time or output."""


class Unplaceable(Exception):
    """A template printed something that is not JSON data (a function, a loop object...)."""


CURRENT_RUN: ContextVar[Run] = ContextVar("stencil_render")

# Powers beyond this many bits are refused before Python spends minutes computing them.
_MAX_POWER_BITS = 1 << 16
_JSON_SCALARS = (str, int, float, bool, type(None))


class Run:
    """One template's rendering: the values behind its tokens, and what is left of its budget."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.nonce = secrets.token_hex(10)
        self.prefix = f"stencilv{self.nonce}x"
        self.token = re.compile(rf"{self.prefix}(\d+)z")
        self.values: list[Any] = []
        self.used: set[int] = set()
        self.deadline = time.monotonic() + limits.seconds
        self.remaining = limits.output_chars

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise OverBudget(f"rendering took longer than {self.limits.seconds:g}s (an endless loop?)")

    def charge(self, chars: int) -> None:
        self.remaining -= chars
        if self.remaining < 0:
            raise OverBudget(f"the output is larger than {self.limits.output_chars} characters")

    def placeholder(self, value: Any) -> str:
        """Record ``value`` (as JSON data) and return the token that stands for it."""
        self.values.append(self.plain(value))
        return f"{self.prefix}{len(self.values) - 1}z"

    def take(self, index: int) -> Any:
        """The value of token ``index``; a copy if the token was already used (a tree shares nothing)."""
        value = self.values[index]
        if index in self.used:
            return _copy(value)
        self.used.add(index)
        return value

    def text(self, index: int) -> str:
        return _text(self.values[index])

    def resolve(self, text: str) -> str:
        """``text`` with every token replaced by its value's string form, in one pass."""
        if self.prefix not in text:
            return text
        return self.token.sub(lambda m: self.text(int(m.group(1))), text)

    def plain(self, value: Any) -> Any:
        """``value`` as a fresh tree of JSON data, tokens in its strings resolved, its size charged."""
        if isinstance(value, _View):
            value = value._data
        if isinstance(value, str):
            self.charge(len(value))
            return self.resolve(str(value))  # str() drops a Markup subclass
        if value is None or isinstance(value, bool | int | float):
            self.charge(8)
            return value
        if isinstance(value, Undefined):
            str(value)  # raises, naming what is missing
        if isinstance(value, Mapping):
            self.charge(2)
            return {self._key(k): self.plain(v) for k, v in value.items()}
        if isinstance(value, Set):
            return self.plain(sorted(value))
        if isinstance(value, Iterable):  # lists, tuples, and what filters such as map() return
            self.charge(2)
            return [self.plain(v) for v in value]
        raise Unplaceable(f"a {type(value).__name__} cannot be placed in a manifest")

    def _key(self, key: Any) -> Any:
        if isinstance(key, str):
            return self.resolve(str(key))
        if isinstance(key, _JSON_SCALARS):
            return key
        raise Unplaceable(f"a {type(key).__name__} cannot be a mapping key")


def _text(value: Any) -> str:
    """A value's string form where it is part of a longer string: itself for strings, else JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


@pass_context
def _finalize(context: Context, value: Any) -> str:
    # pass_context keeps Jinja from folding constant outputs through finalize at
    # compile time, when there is no render to record them in.
    return CURRENT_RUN.get().placeholder(value)


# -- the sandbox ------------------------------------------------------------------------

_LOOP_GUARD = "_stencil_loop_guard"


def _loop_guard(iterable: Iterable[Any]) -> Iterator[Any]:
    """Every ``{% for %}`` iterates through this, so even an empty loop body watches the clock."""
    run = CURRENT_RUN.get()
    for count, item in enumerate(iterable):
        if not count & 63:
            run.tick()
        yield item


class _GuardedCodeGenerator(CodeGenerator):
    """Jinja's code generator with every ``for`` loop's iterable passed through ``_loop_guard``."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        # Rewritten before Jinja collects the filters a template uses, so the guard is among them.
        for loop in list(node.find_all(nodes.For)):
            loop.iter = nodes.Filter(loop.iter, _LOOP_GUARD, [], [], None, None, lineno=loop.lineno)
        super().visit_Template(node, frame)


class Sandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox with a clock on every attribute, item and call, and bounded ``*``/``**``."""

    code_generator_class = _GuardedCodeGenerator
    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, templates: tuple[kinds.Template, ...]) -> None:
        super().__init__(
            loader=_KindFiles(templates),
            undefined=_Undefined,
            finalize=_finalize,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,
        )
        self.filenames = frozenset(str(t.path) for t in templates)
        # Both would make rendering non-deterministic, and a changed render is a write.
        del self.globals["lipsum"]
        del self.filters["random"]
        self.filters.update(
            tojson=_tojson,
            b64encode=_b64encode,
            b64decode=_b64decode,
            sha256=_sha256,
            hash=_sha256,
        )
        self.filters[_LOOP_GUARD] = _loop_guard

    def getattr(self, obj: Any, attribute: str) -> Any:
        CURRENT_RUN.get().tick()
        if isinstance(obj, _Tracked) and attribute in obj._data:
            return obj[attribute]  # a CR field wins over a Mapping method of the same name (items, keys...)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        CURRENT_RUN.get().tick()
        return super().getitem(obj, argument)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        CURRENT_RUN.get().tick()
        return super().call(__context, __obj, *args, **kwargs)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        run = CURRENT_RUN.get()
        if operator == "*":
            for sequence, count in ((left, right), (right, left)):
                if (isinstance(sequence, str | list | tuple) and isinstance(count, int)
                        and len(sequence) * count > run.remaining):
                    raise OverBudget(f"`*` would make a value of {len(sequence) * count} items")
        elif (
            isinstance(left, int) and isinstance(right, int) and right > 0
            and abs(left).bit_length() * right > _MAX_POWER_BITS
        ):
            raise OverBudget(f"`**` would make a number of about {abs(left).bit_length() * right} bits")
        return super().call_binop(context, operator, left, right)


class _KindFiles(BaseLoader):
    """The kind's own templates, by file name, for ``get_template`` and ``{% include %}``."""

    def __init__(self, templates: tuple[kinds.Template, ...]) -> None:
        self.by_name = {t.name: t for t in templates}

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        found = self.by_name.get(template)
        if found is None:
            raise TemplateNotFound(template)
        return found.text, str(found.path), lambda: True


@functools.lru_cache(maxsize=64)
def make_environment(templates: tuple[kinds.Template, ...]) -> Sandbox:
    """One sandbox per set of templates, so each template is compiled once, not on every reconcile."""
    return Sandbox(templates)


# -- filters ------------------------------------------------------------------------------


def _canonical(value: Any) -> str:
    plain = CURRENT_RUN.get().plain(value)
    return json.dumps(plain, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _tojson(value: Any, indent: int | None = None) -> str:
    """JSON text of a value (keys sorted), e.g. for an annotation or a JSON config file."""
    return json.dumps(CURRENT_RUN.get().plain(value), sort_keys=True, indent=indent, ensure_ascii=False)


def _as_text(value: Any) -> str:
    run = CURRENT_RUN.get()
    return run.resolve(str(value)) if isinstance(value, str) else _canonical(value)


def _b64encode(value: Any) -> str:
    """base64 of a string's UTF-8 bytes (of canonical JSON for anything else), as for Secret data."""
    return base64.b64encode(_as_text(value).encode()).decode("ascii")


def _b64decode(value: Any) -> str:
    try:
        return base64.b64decode(_as_text(value), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError) as error:
        raise ValueError(f"b64decode: not base64 of UTF-8 text ({error})") from error


def _sha256(value: Any) -> str:
    """A stable hex digest: of a string's UTF-8 bytes, or of canonical JSON (for config checksums)."""
    return hashlib.sha256(_as_text(value).encode()).hexdigest()


# -- the template context -------------------------------------------------------------------


def join_path(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}" if path else key
    return f"{path}[{key!r}]"


class _View:
    """A read-only view of data from the CR that knows its path, for "spec.replicas is not set"."""

    __slots__ = ("_data", "_path")

    def __init__(self, data: Any, path: str) -> None:
        self._data = data
        self._path = path

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        return bool(self._data == _untracked(other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._data)


class _Tracked(_View, Mapping[str, Any]):
    """A mapping of the CR (or of a child) as templates see it."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        return _track(self._data[key], join_path(self._path, key))

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)


class _TrackedList(_View, Sequence[Any]):
    """A list of the CR (or of a child) as templates see it."""

    __slots__ = ()

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return _TrackedList(self._data[index], self._path)
        return _track(self._data[index], join_path(self._path, index))


def _track(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return _Tracked(value, path)
    if isinstance(value, list):
        return _TrackedList(value, path)
    return value


def _untracked(value: Any) -> Any:
    return value._data if isinstance(value, _View) else value


class MissingField(UndefinedError):
    """A template read a field of the CR (or of a child) that is not there."""

    def __init__(self, message: str | None = None, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class _Undefined(StrictUndefined):
    """``StrictUndefined`` that, for a missing field of a tracked object, says which field."""

    __slots__ = ()

    def __init__(
        self, hint: str | None = None, obj: Any = missing, name: str | None = None,
        exc: type[UndefinedError] = UndefinedError,
    ) -> None:
        # Only a plain miss of a field or an index: the sandbox refusing an attribute passes its
        # own hint, and a list has no fields (``spec.ports.append`` is a method, not a CR field).
        if hint is None and (
            (isinstance(obj, _Tracked) and name is not None)
            or (isinstance(obj, _TrackedList) and isinstance(name, int))
        ):
            field = join_path(obj._path, name)
            hint = f"{field} is not set"
            exc = functools.partial(MissingField, field=field)  # type: ignore[assignment]
        super().__init__(hint, obj, name, exc)


def template_context(parent: dict[str, Any], observed: Sequence[dict[str, Any]]) -> dict[str, Any]:
    metadata = parent.get("metadata") or {}
    by_kind: dict[str, dict[str, Any]] = {}
    for obj in observed:
        name = str((obj.get("metadata") or {}).get("name", ""))
        by_kind.setdefault(str(obj.get("kind", "")), {})[name] = obj
    children = _Tracked(by_kind, "children")

    def child(kind: str, name: str) -> Any:
        """The observed child of this kind and name, or None."""
        found = by_kind.get(kind, {}).get(name)
        return None if found is None else _track(found, f"child({kind!r}, {name!r})")

    return {
        "parent": _Tracked(parent, "parent"),
        "spec": _Tracked(parent.get("spec") or {}, "spec"),
        "metadata": _Tracked(metadata, "metadata"),
        "name": metadata.get("name", ""),
        "namespace": metadata.get("namespace") or "",
        "children": children,
        "child": child,
    }

