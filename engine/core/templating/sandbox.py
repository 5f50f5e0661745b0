"""The Jinja sandbox templates run in: values become tokens, every step watches the clock.

Every ``{{ ... }}`` goes through the environment's ``finalize``, which records the
value in the current ``Run`` and writes an opaque token instead
(``stencilv<nonce>x<n>z``, with a random nonce per render so no value can forge
one); ``engine.core.templating.rendering`` substitutes the values back after YAML parsing.
The filters (``tojson``, ``sha256``...) resolve tokens, so a checksum of a
``{% set %}`` block hashes the real values.

The sandbox is Jinja's immutable one with a clock on every attribute access,
item, call, loop iteration and output chunk, and a budget of output characters
(``Run``), so neither a runaway template nor a huge CR value can stall or flood
the engine.  Its calls, filters and operators are those status rules have, checked
the same way (``engine.core.model.budgets``): a call or filter not on the allowlist is
refused, and every operation that can make a value much larger than its inputs
(``*``, ``**``, ``%``, ``+``, the padding, joining and ``translate`` methods,
``to_bytes``, ``format``, and filters such as ``batch``, ``slice``, ``indent`` or
``join``) has the size of its result charged to the run's budget *before* it runs:
charging afterwards would be too late, the memory already taken.

The template context wraps the parent and its observed children in tracked
views, so an undefined value is reported by the CR field it came from
(``spec.replicas``), not by Jinja's internal name.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import inspect
import json
import math
import re
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from jinja2 import (
    BaseLoader,
    Environment,
    StrictUndefined,
    TemplateNotFound,
    nodes,
    pass_context,
)
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import UndefinedError
from jinja2.runtime import Context, Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import missing

from engine.core.model import budgets, documents, expressions, kinds

# -- values and tokens ------------------------------------------------------------------


@dataclass(frozen=True)
class Limits:
    """Per template: wall-clock seconds, and characters of output (text plus interpolated values)."""

    seconds: float = 1.0
    output_chars: int = 1 << 20


DEFAULT_LIMITS = Limits()


class Unplaceable(Exception):
    """A template printed something that is not JSON data (a function, a loop object...)."""


class NotCallable(Exception):
    """A template called the parent's ``namespace``, a string, as if it were Jinja's ``namespace()``."""


# Jinja's `namespace()` is a global that the parent's `namespace` hides: said where it is called
# (here at render time, by lint without running), since "'str' object is not callable" hides why.
NAMESPACE_IS_A_STRING = (
    "`namespace` is the parent's namespace here (a string), which hides Jinja's namespace(); "
    "compute what a loop would gather with filters instead, e.g. "
    "`{% set total = spec.ports | map(attribute='port') | sum %}`"
)


CURRENT_RUN: ContextVar[Run] = ContextVar("stencil_render")

_JSON_SCALARS = (str, int, float, bool, type(None))


# Every run's tokens, whatever their nonce: compiled once, since compiling a pattern per run
# cost more than the rest of rendering.  A match counts only if its nonce is the run's own
# (``Run.index``): text a template author wrote in the token's shape stays text.
TOKEN = re.compile(r"stencilv([0-9a-f]{20})x(\d+)z")


class Run:
    """One template's rendering: the values behind its tokens, and what is left of its budget."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.nonce = secrets.token_hex(10)
        self.prefix = f"stencilv{self.nonce}x"
        self.values: list[Any] = []
        self.used: set[int] = set()
        self.deadline = time.monotonic() + limits.seconds
        self.remaining = limits.output_chars
        # What the template's growing operations may build, charged before each is run: as much
        # again as its output may hold, apart from it.
        self.budget = budgets.Budget(budgets.Limits(seconds=limits.seconds, chars=limits.output_chars))
        # How many times a filter has read values out of text that holds their tokens: a
        # ``{% filter %}`` block whose filter did so gives a value, not text (``block_output``).
        self.reveals = 0

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            took = f"rendering took longer than {self.limits.seconds:g}s (an endless loop?)"
            raise budgets.OverBudget(took)

    def charge(self, chars: int) -> None:
        self.remaining -= chars
        if self.remaining < 0:
            raise budgets.OverBudget(f"the output is larger than {self.limits.output_chars} characters")

    def placeholder(self, value: Any) -> str:
        """Record ``value`` (as JSON data) and return the token that stands for it."""
        self.values.append(self.plain(value, reveal=False))
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

    def index(self, match: re.Match[str]) -> int | None:
        """The value index of a ``TOKEN`` match, if the token is this run's."""
        return int(match.group(2)) if match.group(1) == self.nonce else None

    def tokens(self, text: str) -> list[re.Match[str]]:
        """This run's tokens in ``text``."""
        if self.prefix not in text:
            return []
        return [match for match in TOKEN.finditer(text) if match.group(1) == self.nonce]

    def resolve(self, text: str, *, reveal: bool = True) -> str:
        """``text`` with every token replaced by its value's string form, in one pass.

        Counted as a reveal unless ``reveal`` is false: where the result becomes a
        token again (a placeholder) or a captured block's value (``_Text``).
        """
        if self.prefix not in text:
            return text
        resolved = TOKEN.sub(self._text_of, text)
        if reveal and resolved != text:
            self.reveals += 1
        return resolved

    def blank(self, text: str) -> str:
        """``text`` with every token shown as ``{{…}}``: for a message that must not quote a value."""
        if self.prefix not in text:
            return text
        return TOKEN.sub(lambda m: "{{…}}" if m.group(1) == self.nonce else m.group(0), text)

    def _text_of(self, match: re.Match[str]) -> str:
        index = self.index(match)
        return match.group(0) if index is None else self.text(index)

    def plain(self, value: Any, *, reveal: bool = True) -> Any:
        """``value`` as a fresh tree of JSON data, tokens in its strings resolved, its size charged."""
        if isinstance(value, _View):
            value = value._data
        if isinstance(value, str):
            self.charge(len(value))
            return self.resolve(str(value), reveal=reveal)  # str() drops a Markup subclass
        if value is None or isinstance(value, bool | int | float):
            self.charge(8)
            if isinstance(value, float) and not math.isfinite(value):
                raise Unplaceable(f"{value} is not a JSON number")
            if (
                isinstance(value, int)
                and not isinstance(value, bool)
                and not (documents.INT64_MIN <= value <= documents.INT64_MAX)
            ):
                raise Unplaceable(
                    "an integer beyond int64 cannot be placed in a manifest (the API server "
                    "would keep only an inexact float of it)"
                )
            return value
        if isinstance(value, Undefined):
            str(value)  # raises, naming what is missing
        if isinstance(value, Mapping):
            self.charge(2)
            return {self._key(k, reveal): self.plain(v, reveal=reveal) for k, v in value.items()}
        if isinstance(value, Set):
            return self.plain(sorted(value), reveal=reveal)
        if isinstance(value, Iterable):  # lists, tuples, and what filters such as map() return
            self.charge(2)
            return [self.plain(v, reveal=reveal) for v in value]
        raise Unplaceable(f"a {type(value).__name__} cannot be placed in a manifest")

    def _key(self, key: Any, reveal: bool) -> Any:
        if isinstance(key, str):
            return self.resolve(str(key), reveal=reveal)
        if isinstance(key, _JSON_SCALARS):
            return key
        raise Unplaceable(f"a {type(key).__name__} cannot be a mapping key")


class running:
    """Render one template as a ``Run`` of its own, whose budget its filters charge too (a class,
    not a generator: it is entered once per template, and ``contextlib`` would double its cost)."""

    def __init__(self, limits: Limits) -> None:
        self.run = Run(limits)

    def __enter__(self) -> Run:
        self.tokens = CURRENT_RUN.set(self.run), budgets.CURRENT.set(self.run.budget)
        return self.run

    def __exit__(self, *_: object) -> None:
        run, budget = self.tokens
        budgets.CURRENT.reset(budget)
        CURRENT_RUN.reset(run)


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


# -- blocks: text a template captures, and where it goes ------------------------------------
#
# Jinja turns template text back into a value in three ways: a ``{% set %}`` block, a macro
# (and ``caller()``) return their text; a ``{% filter %}`` block hands its text to a filter
# whose result is output.  The first two give a value with the values in it, to compute with;
# such text reaches the output only through ``{{ }}`` (one value) or a ``{% call %}`` block,
# which puts back the text it was made of: the template's characters and tokens.  A filter
# block's filter runs on that same text, with each argument the template computes passed as a
# value (a token), so it can only move the template's characters and tokens around; if it read
# values out of the tokens (``b64decode``, ``tojson``, ``sha256``) its result is a value.  So no
# construct lets the characters of a value reach the YAML parser.

_VALUE = "stencil.value"  # not a name a template can write: for the arguments of filter blocks only


class _Text(str):
    """What a ``{% set %}`` block, a macro or ``caller()`` gives back: its text with the values in
    it, so that ``qbytes('500Mi') | float`` computes with the real number.  ``structure`` is the
    text it was made of, the template's own characters and tokens: what a ``{% call %}`` block
    puts back into the output."""

    structure: str

    def __new__(cls, text: str, structure: str) -> _Text:
        made = super().__new__(cls, text)
        made.structure = structure
        return made


def _captured(parts: Iterable[str]) -> _Text:
    """``Sandbox.concat``: the text a block captured, as a value."""
    structure = "".join(parts)
    return _Text(CURRENT_RUN.get().resolve(structure, reveal=False), structure)


def _as_value(value: Any) -> Any:
    """An argument a filter block's filter is given that the template computed: a token for it,
    which the filter can place but not read.  A number stays a number (a width, a count): its
    digits spell no structure."""
    if value is None or isinstance(value, bool | int | float):
        return value
    return CURRENT_RUN.get().placeholder(value)


def _chain(block: nodes.FilterBlock) -> list[nodes.Filter]:
    """The filters of a ``{% filter a | b %}`` block, outermost first (``b``, then ``a``)."""
    chain: list[nodes.Filter] = []
    link: nodes.Node | None = block.filter
    while isinstance(link, nodes.Filter):
        chain.append(link)
        link = link.node
    return chain


def _values_as_arguments(block: nodes.FilterBlock, fail: Callable[[str, int], Any]) -> None:
    """Rewrite a filter block's filters so each argument with a name in it goes in as ``_as_value``."""
    for link in _chain(block):
        if link.dyn_args is not None or link.dyn_kwargs is not None:
            fail("the filter of a {% filter %} block takes no *arguments or **keywords", link.lineno)
        link.args = [_valued(arg) for arg in link.args]
        for keyword in link.kwargs:
            keyword.value = _valued(keyword.value)


def _valued(argument: nodes.Expr) -> nodes.Expr:
    if not isinstance(argument, nodes.Name) and argument.find(nodes.Name) is None:
        return argument  # the template's own constant: "__IMAGE__", 4, ['a']
    return nodes.Filter(argument, _VALUE, [], [], None, None, lineno=argument.lineno)


def _block_output(reveals: int, result: Any) -> str:
    """What a ``{% filter %}`` block puts into the output: its filter's text, or a token for it
    if the filter read values (``reveals`` is the count before it ran) or gave no text."""
    run = CURRENT_RUN.get()
    if run.reveals == reveals and isinstance(result, str) and not isinstance(result, _Text):
        return str(result)
    return run.placeholder(result)


def _call_output(result: Any) -> str:
    """What a ``{% call %}`` block puts into the output: the text of the macro it called, as it
    was made, or a token for anything else (``{% call spec.text.format() %}``)."""
    if isinstance(result, _Text):
        return result.structure
    return CURRENT_RUN.get().placeholder(result)


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
    """Jinja's code generator with every ``for`` loop's iterable passed through ``_loop_guard``,
    and the output of ``{% filter %}`` and ``{% call %}`` blocks through ``_block_output`` and
    ``_call_output``."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        # Rewritten before Jinja collects the filters a template uses, so the guard is among them.
        for loop in list(node.find_all(nodes.For)):
            loop.iter = nodes.Filter(loop.iter, _LOOP_GUARD, [], [], None, None, lineno=loop.lineno)
        for block in list(node.find_all(nodes.FilterBlock)):
            _values_as_arguments(block, self.fail)
        super().visit_Template(node, frame)

    # The two below are Jinja's own, with the written result wrapped.

    def visit_FilterBlock(self, node: nodes.FilterBlock, frame: Frame) -> None:
        filter_frame = frame.inner()
        filter_frame.symbols.analyze_node(node)
        self.enter_frame(filter_frame)
        self.buffer(filter_frame)
        self.blockvisit(node.body, filter_frame)
        # The innermost filter reads the block's text as it stands, tokens and all (Jinja would
        # pass ``concat``, which a block's value is made with); an internal name is written as is.
        text = nodes.InternalName.__new__(nodes.InternalName)
        nodes.Node.__init__(text, f'"".join({filter_frame.buffer})', lineno=node.lineno)
        _chain(node)[-1].node = text
        self.start_write(frame, node)
        self.write("environment.stencil_block_output(environment.stencil_reveals(), ")
        self.visit_Filter(node.filter, filter_frame)
        self.write(")")
        self.end_write(frame)
        self.leave_frame(filter_frame)

    def visit_CallBlock(self, node: nodes.CallBlock, frame: Frame) -> None:
        call_frame, macro_ref = self.macro_body(node, frame)
        self.writeline("caller = ")
        self.macro_def(macro_ref, call_frame)
        self.start_write(frame, node)
        self.write("environment.stencil_call_output(")
        self.visit_Call(node.call, frame, forward_caller=True)
        self.write(")")
        self.end_write(frame)


class Sandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox with a clock on every attribute, item and call, and the calls, filters
    and operators that status rules may use (``budgets``), each charged before it runs."""

    code_generator_class = _GuardedCodeGenerator
    intercepted_binops = budgets.BoundedSandbox.intercepted_binops
    concat = staticmethod(_captured)
    stencil_block_output = staticmethod(_block_output)
    stencil_call_output = staticmethod(_call_output)

    @staticmethod
    def stencil_reveals() -> int:
        return CURRENT_RUN.get().reveals

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
        self.filters = budgets.bounded_filters(
            self.filters, own=("tojson", "b64encode", "b64decode", "sha256", "hash")
        )
        self.filters[_LOOP_GUARD] = _loop_guard
        self.filters[_VALUE] = _as_value

    def getattr(self, obj: Any, attribute: str) -> Any:
        CURRENT_RUN.get().tick()
        if isinstance(obj, _Tracked) and attribute in obj._data:
            return obj[attribute]  # a CR field wins over a Mapping method of the same name (items, keys...)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        CURRENT_RUN.get().tick()
        return super().getitem(obj, argument)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        run = CURRENT_RUN.get()
        run.tick()
        if isinstance(__obj, _ParentNamespace):
            raise NotCallable(NAMESPACE_IS_A_STRING)
        args = budgets.call(__obj, args, kwargs, run.budget)
        return super().call(__context, __obj, *args, **kwargs)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        budget = CURRENT_RUN.get().budget
        budget.tick()
        budgets.binop(operator, left, right, budget)
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


_MAX_JSON_INDENT = 16


def _tojson(value: Any, indent: int | None = None) -> str:
    """JSON text of a value (keys sorted), e.g. for an annotation or a JSON config file."""
    if indent is not None and not 0 <= indent <= _MAX_JSON_INDENT:
        raise ValueError(f"tojson: indent must be between 0 and {_MAX_JSON_INDENT}, not {indent}")
    text = json.dumps(CURRENT_RUN.get().plain(value), sort_keys=True, indent=indent, ensure_ascii=False)
    CURRENT_RUN.get().charge(len(text))
    return text


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
    """A template read a field of the CR (or of a child) that is not there.

    ``reason`` says why, where "not set" would mislead (``children.service``: no
    kind is called that, and a template id is read only by status rules).
    """

    def __init__(self, message: str | None = None, *, field: str, reason: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.reason = reason


class _Undefined(StrictUndefined):
    """``StrictUndefined`` that, for a missing field of a tracked object, says which field."""

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
            (isinstance(obj, _Tracked) and name is not None)
            or (isinstance(obj, _TrackedList) and isinstance(name, int))
        ):
            field = join_path(obj._path, name)
            hint = f"{field} is not set"
            reason = missing_child(name) if obj._path == "children" and isinstance(name, str) else None
            exc = functools.partial(MissingField, field=field, reason=reason)  # type: ignore[assignment]
        elif hint is None and obj is missing and isinstance(name, str):
            hint = unknown_name(name, f"{name!r} is undefined")
        super().__init__(hint, obj, name, exc)


def missing_child(key: str) -> str:
    """Why ``children.<key>`` is not there in a template: ``key`` is a template id, or a kind not observed."""
    if key[:1].isupper():
        return (
            f"no {key} is observed (yet); test it with `is defined`, or read `child('{key}', name)`, "
            "none until it exists"
        )
    return (
        "`children.<id>` is for status rules; a template reads the observed children by kind and "
        "name: `children.Service['my-svc']`, or `child('Service', 'my-svc')`, none until it exists"
    )


def unknown_name(name: str, said: str, hint: str = "") -> str:
    """``said`` (that a template reads ``name``, which it has not) and what a template reads instead:
    a status rule's name is said to be one, else ``hint`` (a "did you mean") comes first."""
    if name in _RULE_NAMES:
        return f"{said} in a template: `{name}` is for status rules (kind.yaml); a template reads {_READS}"
    return f"{said}{hint} (a template reads {_READS})"


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
        "namespace": _ParentNamespace(metadata.get("namespace") or ""),
        "children": children,
        "child": child,
    }


class _ParentNamespace(str):
    """The parent's namespace as templates read it: a string, told apart so that calling it (as
    Jinja's ``namespace()``, which it hides) says so (``Sandbox.call``)."""

    __slots__ = ()


def _read(name: str, value: Any) -> str:
    return f"{name}({', '.join(inspect.signature(value).parameters)})" if callable(value) else name


_CONTEXT = template_context({}, ())
# What a template reads ("parent, spec, ..., child(kind, name)"), and the names only status rules read.
_READS = ", ".join(_read(name, value) for name, value in _CONTEXT.items())
_RULE_NAMES = expressions.CONTEXT_NAMES - frozenset(_CONTEXT)
