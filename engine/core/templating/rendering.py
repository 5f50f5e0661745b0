"""Rendering: a kind's templates, a parent and its observed children -> the children to apply.

``render(kind, parent, observed)`` is pure (no I/O; the clock is read only to
enforce the time budget) and deterministic: the same inputs give the same list
of plain JSON dicts, ready for server-side apply.

Safety.  A value from the CR must never change the *structure* of a manifest,
however it is spelled (newlines, quotes, ``: ``, ``---``, ``&anchors``, ``!!tags``).
Escaping values for YAML would be one more thing every template author must
get right, so values never reach the YAML parser at all:

1. every ``{{ ... }}`` goes through the environment's ``finalize``, which
   records the value and writes an opaque token instead, ``stencilv<nonce>x<n>z``
   (letters and digits only, with a random nonce per render so no value can
   forge one);
2. the text, now made only of the template's own characters and tokens, is
   parsed as YAML with ``documents.StrictLoader`` (no duplicate keys, no aliases,
   JSON types only) into a plan of each document: where each value goes;
3. the plan is filled in: a plain scalar that is exactly one token becomes
   the value itself, with its type (``replicas: {{ spec.replicas }}`` is an
   int, ``resources: {{ spec.resources }}`` the mapping); tokens inside other
   strings (quoted, block or mixed with text) and in keys become the value's
   string form.  Substitution is a single pass, so a value is never re-read.

Speed.  Parsing was most of a render's cost, yet the text it parses depends on
the CR only through which branches and loops the template takes: the values
themselves are tokens.  So a plan is kept by its text with the nonce taken out
(``_Skeletons``, bounded), a template is parsed once per shape of its output,
and a render only fills the plan in (a few copies of dicts and lists).  Values
never reach the text, so no value can choose or change a plan.

Places.  Nobody reads the rendered text, so a problem found in it (a YAML
error, a field placement refuses, a checker's finding) is reported at the
template line that wrote it.  Rendering notes, for each chunk Jinja yields, the
compiled instruction that yielded it, and nothing more; a rendered line is
traced back, and the text composed again into YAML nodes to find it, only when a
place is asked for (``_Output.place``, ``_Output.node``).
``render_located`` gives each child with that ability (``Located.where``).

The sandbox the templates run in (tokens, filters, the clock and output budgets,
the template context) is ``engine.core.templating.sandbox``; where each child lands and what
it carries back to its parent (namespace, labels, owner reference) is
``engine.core.model.placement``.  This module runs the templates, parses their text
and puts the values back.

Rights.  A kind writes only the child kinds derived for it (``child_kinds``: the
kinds its templates spell out, and those its examples render), which is what
``stencil rbac`` grants it; any other child, however a template came to render it,
is refused by placement at its template line.  Deriving them renders the examples,
once per kind (``allowed_child_kinds``).
"""

from __future__ import annotations

import functools
import threading
import types
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml
from jinja2 import Template, TemplateNotFound, nodes
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError, TemplateSyntaxError, UndefinedError

from engine.core.model import apis, budgets, kinds, placement
from engine.core.model.documents import FieldPath, StrictLoader, load_all, yaml_problem
from engine.core.model.errors import RenderError, StencilError
from engine.core.templating import sandbox

# -- the entry points -----------------------------------------------------------------


def render(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    limits: sandbox.Limits = sandbox.DEFAULT_LIMITS,
    child_kinds: Container[tuple[str, str]] | None = None,
) -> list[dict[str, Any]]:
    """The children ``kind``'s templates make for ``parent``, placed, labelled and owned.

    ``observed`` are the parent's children as the cluster has them (templates
    can read, say, a Service's assigned clusterIP).  ``is_namespaced`` tells the
    scope of a child kind; without it the built-in table is used.  A parent
    with a ``metadata.namespace`` is namespaced, one without is cluster-scoped.
    ``child_kinds`` are the ``(apiVersion, kind)`` pairs a child may have; without
    it, those derived for the kind (``allowed_child_kinds``).
    Raises ``RenderError`` (or ``PlacementError``) naming the template, line and
    CR field involved.
    """
    allowed = allowed_child_kinds(kind) if child_kinds is None else child_kinds
    return [located.child for located in _render(kind, parent, observed, is_namespaced, limits, allowed)]


def render_located(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    limits: sandbox.Limits = sandbox.DEFAULT_LIMITS,
    child_kinds: Container[tuple[str, str]] | None = None,
) -> list[Located]:
    """What ``render`` returns, each child with the template that made it and the line of each field.

    For a checker that finds a problem in a rendered child (a field its schema
    refuses, say) and must report it where the author can fix it: not at a line
    of the rendered text, which nobody sees, but at the template's own line::

        for located in rendering.render_located(kind, parent, []):
            for path, problem in check(located.child):
                file, line = located.where(path)
                print(f"{file}:{line}: {problem}")

    Same arguments, errors and children as ``render``.
    """
    allowed = allowed_child_kinds(kind) if child_kinds is None else child_kinds
    return _render(kind, parent, observed, is_namespaced, limits, allowed)


@dataclass(frozen=True)
class Located:
    """A rendered child, the template that made it, and where in that template each field was written.

    ``where(path)`` takes a field path inside ``child`` (``("spec", "ports", 0,
    "port")``) to the template file and line that wrote it.  A field the
    template did not write itself (a label the engine adds, a key inside a
    value that came whole from the CR) is placed at the nearest field above it
    that the template wrote.  The file is ``template``'s own (text an
    ``{% include %}`` brings in is placed at the include), unless the template
    extends another, whose own text is placed in that one.
    """

    child: dict[str, Any]
    template: kinds.Template
    _position: int = field(repr=False, compare=False)  # of its document in the rendered text
    _output: _Output = field(repr=False, compare=False)

    def where(self, path: FieldPath) -> tuple[str, int]:
        """The template file and line that wrote the field ``path``, or the nearest field above it."""
        return self._output.place(_rendered_line(self._output.node(self._position), path, self._output.run))

    def line_of(self, path: FieldPath) -> int:
        """The line of ``where(path)``."""
        return self.where(path)[1]


def _render(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    is_namespaced: Callable[[str, str], bool] | None,
    limits: sandbox.Limits,
    child_kinds: Container[tuple[str, str]],
) -> list[Located]:
    owner = placement.Owner.of(kind, parent)
    scope = is_namespaced or apis.builtin_is_namespaced
    environment = sandbox.make_environment(kind.templates)
    # The names every template of the kind sees, with the environment's globals under them:
    # merged once here, not again for each template (Jinja merges on every render).
    context = {**environment.globals, **sandbox.template_context(parent, observed)}
    children: list[Located] = []
    seen: dict[tuple[str, str, str, str], str] = {}
    for template in kind.templates:
        output, documents = _render_template(environment, kind.templates, template, context, limits)
        for document, position in documents:
            try:
                child = placement.place(document, owner, kind, scope, template, child_kinds)
            except RenderError as error:
                raise _at_template_line(error, output, position) from error
            meta = child["metadata"]
            group = apis.group_of(child["apiVersion"])
            identity = (group, child["kind"], meta.get("namespace", ""), meta["name"])
            if identity in seen:
                raise RenderError(
                    f"{placement.describe(child)} is rendered twice (also by {seen[identity]})",
                    file=str(template.path),
                )
            seen[identity] = template.name
            children.append(Located(child, template, position, output))
    return children


# -- the child kinds a kind may write -------------------------------------------------------


class _EveryKind:
    def __contains__(self, pair: object) -> bool:
        return True


# What the examples render with while the child kinds are derived: they are what decides them.
EVERY_KIND: Container[tuple[str, str]] = _EveryKind()

Defaults = Callable[[dict[str, Any]], dict[str, Any]]


def as_written(parent: dict[str, Any]) -> dict[str, Any]:
    """A parent without the defaults a CRD would give it."""
    return parent


def example_children(kind: kinds.Kind, defaults: Defaults = as_written) -> list[dict[str, Any]]:
    """Every child that rendering the kind's examples yields, whatever its kind.

    ``defaults`` fills in what the API server would (the CRD's schema defaults), so
    an example may leave defaulted fields out, as users' CRs do.
    """
    children: list[dict[str, Any]] = []
    for example in kind.examples:
        for parent in load_all(example):
            if parent.get("kind") != kind.kind:
                continue
            metadata = parent.setdefault("metadata", {})
            metadata.setdefault("namespace", "default")
            metadata.setdefault("uid", placement.NO_UID)
            children.extend(render(kind, defaults(parent), [], child_kinds=EVERY_KIND))
    return children


def child_kinds(kind: kinds.Kind, defaults: Defaults = as_written) -> frozenset[tuple[str, str]]:
    """Every child kind the kind is known to render: spelled out in its templates, or yielded by
    rendering its examples.  The one answer to the question, for RBAC (``stencil rbac`` grants
    these), what a kind may write, the engine's caches and ``stencil diff``."""
    rendered = {(str(c["apiVersion"]), str(c["kind"])) for c in example_children(kind, defaults)}
    return frozenset(rendered | placement.spelled_child_kinds(kind))


@functools.lru_cache(maxsize=256)
def allowed_child_kinds(kind: kinds.Kind) -> frozenset[tuple[str, str]]:
    """The child kinds ``kind`` may write: ``child_kinds(kind)``, derived once per kind.

    Examples that need CRD defaults this process does not have (the engine reads no
    CRD; a kind from a ConfigMap has no examples at all) leave the kinds the templates
    spell out: fewer than ``stencil rbac`` may grant, never more.
    """
    try:
        return child_kinds(kind)
    except (StencilError, OSError, ValueError, yaml.YAMLError):
        return frozenset(placement.spelled_child_kinds(kind))


# -- one template -----------------------------------------------------------------------


def _render_template(
    environment: sandbox.Sandbox,
    templates: tuple[kinds.Template, ...],
    template: kinds.Template,
    context: dict[str, Any],
    limits: sandbox.Limits,
) -> tuple[_Output, list[tuple[Any, int]]]:
    """Render one template to its documents (values filled in, empty ones dropped), each with its position."""
    with sandbox.running(limits) as run:
        output = _generate(environment, templates, template, context, run)
        return output, _documents(output)


def _generated(template: Template, names: dict[str, Any]) -> Iterator[str]:
    """What ``template.generate`` does, in a context of exactly ``names`` (globals merged in
    already): the template's output chunks, an error raised with the template's own lines."""
    context = template.new_context(names, shared=True)
    try:
        yield from template.root_render_func(context)
    except Exception:
        yield template.environment.handle_exception()


def _generate(
    environment: sandbox.Sandbox,
    templates: tuple[kinds.Template, ...],
    template: kinds.Template,
    context: dict[str, Any],
    run: sandbox.Run,
) -> _Output:
    file = str(template.path)
    chunks: list[str] = []
    spots: list[tuple[types.CodeType, int]] = []
    try:
        # A generator (typed Any: its gi_ attributes are read): generate() delegates to the
        # template's root function, which delegates in turn to a {% block %}'s.
        generator: Any = _generated(environment.get_template(template.name), context)
        for chunk in generator:
            run.tick()
            run.charge(len(chunk))
            chunks.append(chunk)
            # Where the compiled template is suspended: its code and instruction, which cost
            # nothing to read (a frame's line number is computed, and would double the cost).
            inner = generator
            while (deeper := inner.gi_yieldfrom) is not None:
                inner = deeper
            frame = inner.gi_frame
            spots.append((frame.f_code, frame.f_lasti))
    except Exception as error:  # every failure inside a template is reported with its location
        raise _failure(error, environment, file) from error
    return _Output(environment, templates, template, run, chunks, spots)


def check_syntax(kind: kinds.Kind) -> None:
    """Raise the ``RenderError`` of the first of ``kind``'s templates that does not compile, at its line.

    Rendering finds such a template too, but only one an example reaches; ``stencil rbac``
    asks this of every template, since a template it cannot read could hold a child kind
    whose rights the role would then lack."""
    environment = sandbox.make_environment(kind.templates)
    for template in kind.templates:
        try:
            environment.get_template(template.name)
        except Exception as error:  # as rendering reports it: a syntax error, a template nested too deep
            raise _failure(error, environment, str(template.path)) from error


def _failure(error: Exception, environment: sandbox.Sandbox, file: str) -> RenderError:
    """The ``RenderError`` for a template that failed to compile or run, at its template line."""
    if isinstance(error, TemplateSyntaxError):
        return RenderError(
            f"template syntax error: {error.message}", file=error.filename or file, line=error.lineno
        )
    return _located(error, environment, file)


def _located(error: Exception, environment: sandbox.Sandbox, default_file: str) -> RenderError:
    """A ``RenderError`` for an exception raised while a template ran, at the template line it came from."""
    file, line = default_file, None
    frame = error.__traceback__
    while frame is not None:  # Jinja rewrites the traceback so template frames carry template lines
        if frame.tb_frame.f_code.co_filename in environment.filenames:
            file, line = frame.tb_frame.f_code.co_filename, frame.tb_lineno
        frame = frame.tb_next
    field = None
    if isinstance(error, sandbox.MissingField):
        field = error.field
        where = "in the observed child" if field.startswith(("children", "child(")) else "in the parent"
        message = error.reason or f"not set {where} (use `is defined` or `| default(...)` if it is optional)"
    elif isinstance(error, budgets.BudgetError | sandbox.Unplaceable | sandbox.NotCallable):
        message = str(error)
    elif isinstance(error, UndefinedError):
        message = error.message or "undefined value"
    elif isinstance(error, SecurityError):
        message = f"not allowed in a template: {error}"
    elif isinstance(error, RecursionError):
        message = "the template recurses too deeply"
    elif isinstance(error, TemplateNotFound):
        message = f"no template {error.name!r} in this kind folder"
    else:
        message = f"{type(error).__name__}: {error}"
    return RenderError(message, file=file, line=line, field=field)


# -- parsing the rendered text ------------------------------------------------------------


class _Slot:
    """A plain scalar that was exactly one token: the value goes here, type and all."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def fill(self, run: sandbox.Run) -> Any:
        return run.take(self.index)

    def text(self, run: sandbox.Run) -> str:
        return run.text(self.index)


class _Mixed:
    """A string with tokens among template text (quoted, a block, part of a plain scalar or a key).

    ``parts`` alternate the template's text and value indices, found once when the
    text is parsed, so filling it in is a join.
    """

    __slots__ = ("parts",)

    def __init__(self, parts: tuple[str | int, ...]) -> None:
        self.parts = parts

    def fill(self, run: sandbox.Run) -> str:
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

    def fill(self, run: sandbox.Run) -> dict[Any, Any]:
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

    def fill(self, run: sandbox.Run) -> dict[Any, Any]:
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

    def fill(self, run: sandbox.Run) -> list[Any]:
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


def _compile(value: Any, run: sandbox.Run) -> Any:
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


def _mixed(text: str, run: sandbox.Run) -> str | _Mixed:
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
        match = sandbox.TOKEN.fullmatch(value)
        if match is not None and (index := loader.run.index(match)) is not None:
            return _Slot(index)
    return value


class _RenderLoader(StrictLoader):
    """``StrictLoader`` that turns whole-token plain scalars into slots."""

    run: sandbox.Run
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


def _documents(output: _Output) -> list[tuple[Any, int]]:
    """The documents of ``output``'s text with the values filled in, each with its position in the stream."""
    run = output.run
    key = tuple(output.text.split(run.prefix))
    skeleton = _SKELETONS.get(key)
    if skeleton is None:
        skeleton = _parse(output)
        _SKELETONS.keep(key, skeleton)
    try:
        return [
            (plan.fill(run) if isinstance(plan, _PLANS) else plan, position)
            for position, plan in skeleton.documents
        ]
    except _DuplicateKey as error:
        field = functools.reduce(sandbox.join_path, reversed(error.path), "")
        raise RenderError(
            f"duplicate key {error.name!r} once the values are filled in",
            file=str(output.template.path),
            field=field or None,
        ) from error


def _parse(output: _Output) -> _Skeleton:
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
        raise _yaml_error(output, line, problem) from error
    return _Skeleton(tuple(documents))


def _yaml_error(output: _Output, line: int | None, problem: str) -> RenderError:
    """A YAML problem in rendered text, at its template line, quoting the rendered line with ``{{…}}``
    for each value.

    The values themselves are left out: they may be secrets, and the message
    ends up in conditions and events.
    """
    file = str(output.template.path)
    if line is None:
        return RenderError(f"the rendered output is not valid YAML: {problem}", file=file)
    file, template_line = output.place(line)
    lines = output.text.splitlines()
    quoted = output.run.blank(lines[line - 1]).strip() if 0 < line <= len(lines) else ""
    return RenderError(
        f"the rendered output is not valid YAML: {problem}: rendered line {line} reads {quoted!r}",
        file=file,
        line=template_line,
    )


def _at_template_line(error: RenderError, output: _Output, position: int) -> RenderError:
    """``error``, about a field of the document at ``position``, at the template line of that field."""
    if error.line is not None:
        return error
    path: FieldPath = tuple(error.field.split(".")) if error.field else ()
    file, line = output.place(_rendered_line(output.node(position), path, output.run))
    return type(error)(error.message, file=file, line=line, field=error.field)


def _rendered_line(node: yaml.Node, path: FieldPath, run: sandbox.Run) -> int:
    """The rendered line where the field ``path`` is named (its key), or the nearest field above it."""
    mark = node.start_mark
    for part in path:
        if isinstance(node, yaml.MappingNode):
            found = next((pair for pair in node.value if run.resolve(str(pair[0].value)) == part), None)
            if found is None:
                break
            mark, node = found[0].start_mark, found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
            mark = node.start_mark
        else:
            break
    return int(mark.line) + 1


# -- from rendered lines back to template lines ----------------------------------------------


class _Output:
    """One template's rendered text, able to say which template line each rendered line came from.

    Jinja yields a template's output in chunks: runs of the template's own
    text, copied verbatim, and the tokens that stand for values, which hold no
    newline.  ``_generate`` notes, for each chunk, the line of compiled code
    that yielded it; nothing more is done while rendering, so that rendering
    stays as fast as it was.  Only when a place is asked for (a YAML error, a
    checker's ``Located.where``) is a rendered line traced back: to the chunk
    it starts with, then to the template line that chunk starts on, plus the
    newlines before it inside the chunk.
    """

    def __init__(
        self,
        environment: sandbox.Sandbox,
        templates: tuple[kinds.Template, ...],
        template: kinds.Template,
        run: sandbox.Run,
        chunks: list[str],
        spots: list[tuple[types.CodeType, int]],
    ) -> None:
        self.environment = environment
        self.templates = templates
        self.template = template
        self.run = run
        self.text = "".join(chunks)
        self._chunks = chunks
        self._spots = spots  # per chunk: the compiled code that yielded it, and the instruction
        self._starts: list[tuple[int, int]] | None = None
        self._nodes: list[yaml.Node] | None = None

    def node(self, position: int) -> yaml.Node:
        """The YAML node of the document at ``position`` of the text (its lines are the rendered lines).

        Composed only when asked for: a parsed text is cached without its nodes
        (``_Skeletons``), and most renders never need a line.
        """
        if self._nodes is None:
            nodes: list[yaml.Node] = []
            loader = StrictLoader(self.text)
            try:
                while loader.check_node():
                    node = loader.get_node()
                    if node is not None:
                        nodes.append(node)
            finally:
                loader.dispose()
            self._nodes = nodes
        return self._nodes[position]

    def place(self, rendered_line: int) -> tuple[str, int]:
        """The template file and line that rendered line ``rendered_line`` (1-based) came from."""
        starts = self._line_starts()
        if not starts:
            return str(self.template.path), 1
        index, newlines = starts[min(max(rendered_line, 1), len(starts)) - 1]
        code, instruction = self._spots[index]
        file, code_line = code.co_filename, _line_of_instruction(code, instruction)
        compiled = next((t for t in self.templates if str(t.path) == file), None)
        if compiled is None:  # not code of this kind's templates: only the template itself is known
            return str(self.template.path), 1
        pieces = _text_lines(self.environment, compiled).get(code_line)
        if pieces is not None:
            return file, _line_in(pieces, newlines)
        # A value's token, or text passed on from an {% include %}: the line of that statement.
        return file, self.environment.get_template(compiled.name).get_corresponding_lineno(code_line)

    def _line_starts(self) -> list[tuple[int, int]]:
        """For each rendered line, the chunk it starts in and how many of that chunk's newlines precede it.

        A line that starts right after a chunk ending in a newline starts with the
        next chunk: the tag between them (``{% if %}``, trimmed away with its
        newline) may have moved the template on by lines.
        """
        if self._starts is None:
            starts: list[tuple[int, int]] = []
            at_line_start = True
            for index, chunk in enumerate(self._chunks):
                if not chunk:
                    continue
                if at_line_start:
                    starts.append((index, 0))
                at_line_start = chunk.endswith("\n")
                inside = chunk.count("\n") - (1 if at_line_start else 0)
                starts.extend((index, newlines) for newlines in range(1, inside + 1))
            self._starts = starts
        return self._starts


# A run of template text as Jinja yields it: the pieces it joined, each (template line it starts on, text).
_Pieces = tuple[tuple[int, str], ...]


def _line_in(pieces: _Pieces, newlines: int) -> int:
    """The template line of the rendered line that starts after ``newlines`` newlines of a run of text.

    A run may join pieces that were not adjacent in the template (text on both
    sides of a ``{# comment #}``), so each newline is counted within its piece.
    """
    seen = 0
    for index, (start, text) in enumerate(pieces):
        count = text.count("\n")
        if seen + count >= newlines:
            within = newlines - seen
            if within and within == count and text.endswith("\n") and index + 1 < len(pieces):
                return pieces[index + 1][0]  # the line starts with the next piece
            return start + within
        seen += count
    return pieces[-1][0]


def _line_of_instruction(code: types.CodeType, offset: int) -> int:
    """The line of the compiled template's Python code that the instruction at ``offset`` belongs to."""
    line = 0
    for start, _end, number in code.co_lines():
        if start > offset:
            break
        if number is not None:
            line = number
    return line


class _TextLines(CodeGenerator):
    """Jinja's code generator, noting where in the template each ``yield`` of template text comes from.

    Jinja's own line table (``Template.debug_info``) has no entry for those
    yields, since no node is written with them, so a run of text would be placed
    at whatever statement came before it (an ``{% if %}`` many lines up).  The
    generated code is the same, so its line numbers are those of the compiled template.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.text_lines: dict[int, _Pieces] = {}
        self._runs: list[_Pieces] = []
        self._pending: _Pieces | None = None

    def visit_Output(self, node: nodes.Output, frame: Frame) -> None:
        # Jinja joins each run of adjacent template data into one constant; with the
        # sandbox's finalize no expression is ever constant, so the runs are exactly these.
        runs: list[list[tuple[int, str]]] = []
        previous: nodes.Node | None = None
        for child in node.nodes:
            if isinstance(child, nodes.TemplateData):
                if not isinstance(previous, nodes.TemplateData):
                    runs.append([])
                runs[-1].append((child.lineno, child.data))
            previous = child
        self._runs = [tuple(run) for run in reversed(runs)]
        super().visit_Output(node, frame)

    def _output_const_repr(self, group: Iterable[Any]) -> str:
        self._pending = self._runs.pop() if self._runs else None
        return super()._output_const_repr(group)

    def writeline(self, x: str, node: nodes.Node | None = None, extra: int = 0) -> None:
        super().writeline(x, node, extra)
        if self._pending is not None:
            self.text_lines[self.code_lineno] = self._pending
            self._pending = None


@functools.lru_cache(maxsize=256)
def _text_lines(environment: sandbox.Sandbox, template: kinds.Template) -> dict[int, _Pieces]:
    """Code line of each ``yield`` of template text in ``template``'s compiled code -> the text's pieces."""
    generator_class = type("_TextLinesOf", (_TextLines, environment.code_generator_class), {})
    tree = environment.parse(template.text, template.name, str(template.path))
    generator = generator_class(
        environment, template.name, str(template.path), None, False, environment.optimized
    )
    generator.visit(tree)
    lines: dict[int, _Pieces] = generator.text_lines
    return lines
