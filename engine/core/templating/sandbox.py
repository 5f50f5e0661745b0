"""The Jinja sandbox templates run in: values become tokens, every step watches the clock.

Every ``{{ ... }}`` becomes a token (``engine.core.templating.tokens``), so a value
never reaches the YAML parser.  The filters (``tojson``, ``sha256``, the
``library``'s ``fromyaml``...) resolve tokens, so a checksum of a ``{% set %}`` block hashes
the real values.

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

What a template reads (the parent and its observed children, in views that name
the field a missing value came from) is ``engine.core.templating.context``; where
the sandbox reaches into Jinja's code generator, ``engine.core.jinja``.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from jinja2 import BaseLoader, Environment, TemplateNotFound, nodes, pass_context
from jinja2.runtime import Context, Macro, Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import Namespace

from engine.core import jinja
from engine.core.model import budgets, kinds
from engine.core.model.language import expressions, library
from engine.core.templating.context import (
    FieldUndefined,
    MissingField,
    ParentNamespace,
    Tracked,
    join_path,
    template_context,
    unknown_name,
)
from engine.core.templating.tokens import (
    CURRENT_RUN,
    DEFAULT_LIMITS,
    TOKEN,
    Limits,
    Run,
    Unplaceable,
    running,
)

# What other modules read here: the sandbox, and the tokens and context it renders with.
__all__ = [
    "DEFAULT_LIMITS",
    "TOKEN",
    "Limits",
    "MissingField",
    "Run",
    "Sandbox",
    "Unplaceable",
    "join_path",
    "make_environment",
    "running",
    "template_context",
    "unknown_file",
    "unknown_name",
]


# -- values become tokens -----------------------------------------------------------------


@pass_context
def _finalize(context: Context, value: Any) -> str:
    # pass_context keeps Jinja from folding constant outputs through finalize at
    # compile time, when there is no render to record them in.
    if isinstance(value, Undefined):
        # The else an inline if left out (``{{ ', ' if not loop.last }}``) prints nothing, as in
        # Jinja: no value, so no token; a missing field (``FieldUndefined``) raises, naming it.
        return str(value)
    run = CURRENT_RUN.get()
    token = run.placeholder(value)
    if isinstance(value, _Text):  # so a macro's text printed as a whole document can be told apart
        run.captured.add(len(run.values) - 1)
    return token


# -- blocks: text a template captures, and where it goes ------------------------------------
#
# Jinja turns template text back into a value in three ways: a ``{% set %}`` block, a macro
# (and ``caller()``) return their text; a ``{% filter %}`` block hands its text to a filter
# whose result is output.  The first two give a value with the values in it, to compute with;
# such text reaches the output only through ``{{ }}`` (one value) or a ``{% call %}`` block,
# which puts back the text it was made of: the template's characters and tokens, its ``---``
# among them (a macro that never calls ``caller()`` is called so with an empty block).  A filter
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


def _values_as_arguments(block: nodes.FilterBlock, fail: Callable[[str, int], Any]) -> None:
    """Rewrite a filter block's filters so each argument with a name in it goes in as ``_as_value``."""
    for link in jinja.filter_chain(block):
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


def _without_caller(macro: Macro, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keywords a ``{% call %}`` block passes a macro that never calls ``caller()``, less the
    caller, which Jinja would refuse: so a macro that puts out whole documents is put out with an
    empty block.  Text in the block would be lost, so that is an error."""
    if str(kwargs["caller"]()).strip():
        raise TypeError(
            f"macro {macro.name!r} never calls caller(), so the text inside this {{% call %}} block "
            "would be lost: leave the block empty, or have the macro call caller()"
        )
    return {key: value for key, value in kwargs.items() if key != "caller"}


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


class _GuardedCodeGenerator(jinja.BlockHooks):
    """Jinja's code generator with every ``for`` loop's iterable passed through ``_loop_guard``,
    and the output of ``{% filter %}`` and ``{% call %}`` blocks through ``_block_output`` and
    ``_call_output``."""

    filter_block_output = "environment.stencil_block_output(environment.stencil_reveals(), "
    call_block_output = "environment.stencil_call_output("

    def rewrite(self, tree: nodes.Template) -> None:
        # Before Jinja collects the filters a template uses, so the guard is among them.
        for loop in list(tree.find_all(nodes.For)):
            loop.iter = nodes.Filter(loop.iter, _LOOP_GUARD, [], [], None, None, lineno=loop.lineno)
        for block in list(tree.find_all(nodes.FilterBlock)):
            _values_as_arguments(block, self.fail)


class Sandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox with a clock on every attribute, item and call, and the calls, filters
    and operators that status rules may use (``budgets``), each charged before it runs."""

    code_generator_class = _GuardedCodeGenerator
    intercepted_binops = budgets.BoundedSandbox.intercepted_binops
    concat = jinja.concat_with(_captured)
    stencil_block_output = staticmethod(_block_output)
    stencil_call_output = staticmethod(_call_output)

    @staticmethod
    def stencil_reveals() -> int:
        return CURRENT_RUN.get().reveals

    def __init__(self, sources: tuple[kinds.Source, ...]) -> None:
        super().__init__(
            loader=_KindFiles(sources),
            undefined=FieldUndefined,
            finalize=_finalize,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,
        )
        self.filenames = frozenset(str(s.path) for s in sources)
        # Both would make rendering non-deterministic, and a changed render is a write.
        del self.globals["lipsum"]
        del self.filters["random"]
        self.tests["none"] = expressions.reads_as_none  # a missing field is none, as in status rules
        self.filters.update(
            tojson=_tojson,
            b64encode=_b64encode,
            b64decode=_b64decode,
            sha256=_sha256,
            hash=_sha256,
        )
        self.filters.update({name: _on_values(f) for name, f in library.FILTERS.items()})
        self.globals.update({name: _on_values(f) for name, f in library.FUNCTIONS.items()})
        self.filters = budgets.bounded_filters(
            self.filters, own=("tojson", "b64encode", "b64decode", "sha256", "hash", *library.FILTERS)
        )
        self.filters[_LOOP_GUARD] = _loop_guard
        self.filters[_VALUE] = _as_value

    def getattr(self, obj: Any, attribute: str) -> Any:
        CURRENT_RUN.get().tick()
        if isinstance(obj, Tracked) and attribute in obj._data:
            return obj[attribute]  # a CR field wins over a Mapping method of the same name (items, keys...)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        CURRENT_RUN.get().tick()
        return super().getitem(obj, argument)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        run = CURRENT_RUN.get()
        run.tick()
        if isinstance(__obj, ParentNamespace):
            __obj = Namespace  # what calling it is, which the allowlist knows
        if (
            isinstance(__obj, Macro)
            and isinstance(kwargs.get("caller"), Macro)
            and not jinja.takes_caller(__obj)
        ):
            kwargs = _without_caller(__obj, kwargs)
        args = budgets.call(__obj, args, kwargs, run.budget)
        return super().call(__context, __obj, *args, **kwargs)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        budget = CURRENT_RUN.get().budget
        budget.tick()
        budgets.binop(operator, left, right, budget)
        return super().call_binop(context, operator, left, right)


class _KindFiles(BaseLoader):
    """The kind's own templates and partials, by file name, for ``get_template``, ``{% include %}``,
    ``{% import %}`` and ``{% extends %}``: no other file can be reached."""

    def __init__(self, sources: tuple[kinds.Source, ...]) -> None:
        self.by_name = {s.name: s for s in sources}

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        found = self.by_name.get(template)
        if found is None:
            raise TemplateNotFound(template)
        return found.text, str(found.path), lambda: True


def unknown_file(name: str) -> str:
    """What is said of an ``{% include %}``, ``{% import %}`` or ``{% extends %}`` of ``name``,
    which the kind folder has not."""
    return (
        f"{name!r} is neither a template nor a partial of this kind folder: a template can include or "
        "import another template, or a partial (a file beside kind.yaml named _*.yaml or _*.j2)"
    )


@functools.lru_cache(maxsize=64)
def make_environment(sources: tuple[kinds.Source, ...]) -> Sandbox:
    """One sandbox per kind's templates and partials (``Kind.sources``), so each is compiled once,
    not on every reconcile."""
    return Sandbox(sources)


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


def _on_values(function: Callable[..., Any]) -> Callable[..., Any]:
    """A ``library`` function given values, not tokens: the text of a ``{% filter fromyaml %}``
    block, and the arguments of a filter block's filter, hold tokens (``_as_value``).  What it
    returns is a value, which becomes a token where it is printed: parsed text stays data."""

    @functools.wraps(function)
    def on_values(*args: Any, **kwargs: Any) -> Any:
        run = CURRENT_RUN.get()
        args = tuple(run.resolve(a) if isinstance(a, str) else a for a in args)
        kwargs = {k: run.resolve(v) if isinstance(v, str) else v for k, v in kwargs.items()}
        return function(*args, **kwargs)

    return on_values
