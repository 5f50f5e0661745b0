"""Substitution: a template's rendered text parsed as YAML, and the values put back in place of its tokens.

The text, made only of the template's own characters and tokens
(``engine.core.templating.tokens``), is parsed as YAML with
``documents.StrictLoader`` (no duplicate keys, no aliases, JSON types only) into a
plan of each document: where each value goes.  The plan is then filled in: a
plain scalar that is exactly one token becomes the value itself, with its type
(``replicas: {{ spec.replicas }}`` is an int, ``resources: {{ spec.resources }}``
the mapping); tokens inside other strings (quoted, block or mixed with text) and
in keys become the value's string form.  Substitution is a single pass, so a
value is never re-read.

Speed.  Parsing was most of a render's cost, yet the text it parses depends on
the CR only through which branches and loops the template takes: the values
themselves are tokens.  So a plan is kept by its text with the nonce taken out
(``_Skeletons``, bounded), a template is parsed once per shape of its output,
and a render only fills the plan in (a few copies of dicts and lists).  Values
never reach the text, so no value can choose or change a plan.
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Any

import yaml

from engine.core.model.errors import RenderError
from engine.core.model.language.documents import StrictLoader, yaml_problem
from engine.core.templating.context import join_path
from engine.core.templating.places import Output, at_template_line, yaml_error
from engine.core.templating.tokens import TOKEN, Run


class _Slot:
    """A plain scalar that was exactly one token: the value goes here, type and all."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def fill(self, run: Run) -> Any:
        return run.take(self.index)

    def text(self, run: Run) -> str:
        return run.text(self.index)


class _Mixed:
    """A string with tokens among template text (quoted, a block, part of a plain scalar or a key).

    ``parts`` alternate the template's text and value indices, found once when the
    text is parsed, so filling it in is a join.
    """

    __slots__ = ("parts",)

    def __init__(self, parts: tuple[str | int, ...]) -> None:
        self.parts = parts

    def fill(self, run: Run) -> str:
        return "".join([part if isinstance(part, str) else run.text(part) for part in self.parts])

    text = fill


class _Mapping:
    """A mapping whose keys are all the template's own: a copy of ``shape``, the values in ``fills`` put in.

    ``shape`` holds every key in its order, with the scalars the template wrote
    and a stand-in for the rest; filling a copy keeps the order.
    """

    __slots__ = ("fills", "shape")

    def __init__(self, shape: dict[Any, Any], fills: tuple[tuple[Any, _Plan], ...]) -> None:
        self.shape = shape
        self.fills = fills

    def fill(self, run: Run) -> dict[Any, Any]:
        filled = self.shape.copy()
        for key, plan in self.fills:
            try:
                filled[key] = plan.fill(run)
            except _DuplicateKey as error:
                error.path.append(key)
                raise
        return filled


class _KeyedMapping:
    """A mapping with a key made from a value, which may collide with another key once filled in."""

    __slots__ = ("entries",)

    def __init__(self, entries: tuple[tuple[Any, Any], ...]) -> None:
        self.entries = entries

    def fill(self, run: Run) -> dict[Any, Any]:
        filled: dict[Any, Any] = {}
        for key, value in self.entries:
            name = key.text(run) if isinstance(key, _Slot | _Mixed) else key
            if name in filled:
                raise _DuplicateKey(name)
            try:
                filled[name] = value.fill(run) if isinstance(value, _PLANS) else value
            except _DuplicateKey as error:
                error.path.append(name)
                raise
        return filled


class _Sequence:
    """A list: a copy of ``shape`` (the scalars the template wrote), the items in ``fills`` put in."""

    __slots__ = ("fills", "shape")

    def __init__(self, shape: list[Any], fills: tuple[tuple[int, _Plan], ...]) -> None:
        self.shape = shape
        self.fills = fills

    def fill(self, run: Run) -> list[Any]:
        filled = self.shape.copy()
        for index, plan in self.fills:
            try:
                filled[index] = plan.fill(run)
            except _DuplicateKey as error:
                error.path.append(index)
                raise
        return filled


# What a document is compiled to: every part that is not a scalar the template wrote is one of these,
# and is built afresh on every fill, so no two children share a container.
_Plan = _Slot | _Mixed | _Mapping | _KeyedMapping | _Sequence
_PLANS = (_Slot, _Mixed, _Mapping, _KeyedMapping, _Sequence)


class _DuplicateKey(Exception):
    """Two keys of a mapping are the same once filled in; ``path`` gathers the keys above, innermost first."""

    def __init__(self, name: Any) -> None:
        super().__init__(name)
        self.name = name
        self.path: list[Any] = []


def _compile(value: Any, run: Run) -> Any:
    """A constructed document (tokens still in it) as its plan, or the scalar the template wrote."""
    if isinstance(value, str):
        return _mixed(value, run)
    if isinstance(value, dict):
        entries = [(_mixed(k, run) if isinstance(k, str) else k, _compile(v, run)) for k, v in value.items()]
        if any(isinstance(key, _Slot | _Mixed) for key, _ in entries):
            return _KeyedMapping(tuple(entries))
        return _Mapping(
            {key: None if isinstance(item, _PLANS) else item for key, item in entries},
            tuple((key, item) for key, item in entries if isinstance(item, _PLANS)),
        )
    if isinstance(value, list):
        items = [_compile(item, run) for item in value]
        return _Sequence(
            [None if isinstance(item, _PLANS) else item for item in items],
            tuple((index, item) for index, item in enumerate(items) if isinstance(item, _PLANS)),
        )
    return value  # a _Slot, or a number, boolean or null the template wrote


def _mixed(text: str, run: Run) -> str | _Mixed:
    """``text`` split around this run's tokens, or ``text`` itself if it holds none."""
    parts: list[str | int] = []
    at = 0
    for match in run.tokens(text):
        parts.extend((text[at : match.start()], int(match.group(2))))
        at = match.end()
    if not parts:
        return text
    parts.append(text[at:])
    return _Mixed(tuple(part for part in parts if part != ""))


def _construct_str(loader: _RenderLoader, node: yaml.ScalarNode) -> str | _Slot:
    value = loader.construct_scalar(node)
    if not node.style:  # plain (libyaml says "", the Python parser None)
        match = TOKEN.fullmatch(value)
        if match is not None and (index := loader.run.index(match)) is not None:
            return _Slot(index)
    return value


class _RenderLoader(StrictLoader):
    """``StrictLoader`` that turns whole-token plain scalars into slots."""

    run: Run
    yaml_constructors = {**StrictLoader.yaml_constructors, "tag:yaml.org,2002:str": _construct_str}


@dataclass(frozen=True)
class _Skeleton:
    """A rendered text's documents with the values left out: each non-empty one's position and plan."""

    documents: tuple[tuple[int, Any], ...]


class _Skeletons:
    """Parsed texts, by the text with the run's nonce taken out: the pieces between its tokens.

    A template whose output depends on the CR only through its tokens (no branch
    or loop on a value) renders the same pieces, token indices included, for
    every parent, so it is parsed once.  The pieces say the text exactly, since
    the nonce is nowhere else in it (``_parse`` checks), and a hit is always a
    text that parsed without error.  Bounded by the characters of the texts
    kept, oldest out first; a text larger than an eighth of that is not kept.
    """

    def __init__(self, max_chars: int) -> None:
        self.max_chars = max_chars
        self._kept: dict[tuple[str, ...], _Skeleton] = {}
        self._chars = 0
        self._lock = threading.Lock()  # workers render in threads; a read needs none

    def get(self, key: tuple[str, ...]) -> _Skeleton | None:
        return self._kept.get(key)

    def keep(self, key: tuple[str, ...], skeleton: _Skeleton) -> None:
        size = sum(map(len, key))
        if size > self.max_chars // 8:
            return
        with self._lock:
            while self._kept and self._chars + size > self.max_chars:
                oldest = next(iter(self._kept))
                del self._kept[oldest]
                self._chars -= sum(map(len, oldest))
            if key not in self._kept:
                self._kept[key] = skeleton
                self._chars += size


_SKELETONS = _Skeletons(1 << 20)


# A value's text stays one value wherever it is printed, a macro's too: the template's YAML is only
# what the template itself puts out, and a {% call %} block puts out the macro's text as its own.
_CAPTURED_DOCUMENT = (
    "a macro's text (or a {% set %} block's, or caller()'s) printed with {{ }} is one value, a string, "
    "so it cannot be a document: to put out a macro's text as the template's own YAML (fields, or "
    "documents with --- between them), call it with a {% call %} block: {% call name(...) %}{% endcall %}"
)


def documents(output: Output) -> list[tuple[Any, int]]:
    """The documents of ``output``'s text with the values filled in, each with its position in the stream."""
    run = output.run
    key = tuple(output.text.split(run.prefix))
    skeleton = _SKELETONS.get(key)
    if skeleton is None:
        skeleton = _parse(output)
        _SKELETONS.keep(key, skeleton)
    for position, plan in skeleton.documents:
        if isinstance(plan, _Slot) and plan.index in run.captured:
            error = RenderError(_CAPTURED_DOCUMENT, file=str(output.template.path))
            raise at_template_line(error, output, position)
    try:
        return [
            (plan.fill(run) if isinstance(plan, _PLANS) else plan, position)
            for position, plan in skeleton.documents
        ]
    except _DuplicateKey as error:
        field = functools.reduce(join_path, reversed(error.path), "")
        raise RenderError(
            f"duplicate key {error.name!r} once the values are filled in",
            file=str(output.template.path),
            field=field or None,
        ) from error


def _parse(output: Output) -> _Skeleton:
    """The documents of the rendered text, each with its position in the stream, as plans."""
    text, run, template = output.text, output.run, output.template
    if text.lower().count(run.nonce) != len(run.tokens(text)):
        raise RenderError(
            "an interpolation was altered after it was printed (by a `{% filter %}` block?); "
            "apply filters to values inside {{ }} instead",
            file=str(template.path),
        )
    documents: list[tuple[int, Any]] = []
    position = 0
    try:
        loader = _RenderLoader(text)  # StrictLoader scans the text first: anchors, depth
        loader.run = run
        try:
            while loader.check_node():
                node = loader.get_node()
                if node is not None:
                    document = loader.construct_document(node)
                    if document is not None:
                        documents.append((position, _compile(document, run)))
                    position += 1
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        line, problem = yaml_problem(error)
        raise yaml_error(output, line, problem) from error
    return _Skeleton(tuple(documents))
