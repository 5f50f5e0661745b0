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
   JSON types only);
3. the tree is walked once: a plain scalar that is exactly one token becomes
   the value itself, with its type (``replicas: {{ spec.replicas }}`` is an
   int, ``resources: {{ spec.resources }}`` the mapping); tokens inside other
   strings (quoted, block or mixed with text) and in keys become the value's
   string form.  Substitution is a single pass, so a value is never re-read.

The sandbox the templates run in (tokens, filters, the clock and output budgets,
the template context) is ``engine.core.sandbox``; where each child lands and what
it carries back to its parent (namespace, labels, owner reference) is
``engine.core.placement``.  This module runs the templates, parses their text
and puts the values back.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import yaml
from jinja2 import TemplateNotFound
from jinja2.exceptions import SecurityError, TemplateSyntaxError, UndefinedError

from engine.core import apis, kinds, placement, sandbox
from engine.core.documents import StrictLoader, check_no_anchors, yaml_problem
from engine.core.errors import RenderError

# -- the entry point ------------------------------------------------------------------


def render(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    limits: sandbox.Limits = sandbox.DEFAULT_LIMITS,
) -> list[dict[str, Any]]:
    """The children ``kind``'s templates make for ``parent``, placed, labelled and owned.

    ``render_by_template`` gives the same children, each with the template that made it.

    ``observed`` are the parent's children as the cluster has them (templates
    can read, say, a Service's assigned clusterIP).  ``is_namespaced`` tells the
    scope of a child kind; without it the built-in table is used.  A parent
    with a ``metadata.namespace`` is namespaced, one without is cluster-scoped.
    Raises ``RenderError`` (or ``PlacementError``) naming the template, line and
    CR field involved.
    """
    made = render_by_template(kind, parent, observed, is_namespaced=is_namespaced, limits=limits)
    return [child for _, child in made]


def render_by_template(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    limits: sandbox.Limits = sandbox.DEFAULT_LIMITS,
) -> list[tuple[kinds.Template, dict[str, Any]]]:
    """``render``'s children in the same order, each with the template that made it: a child
    is known by its template's id in status rules and ``after:`` (``engine.core.ordering``)."""
    owner = placement.Owner.of(kind, parent)
    scope = is_namespaced or apis.builtin_is_namespaced
    environment = sandbox.make_environment(kind.templates)
    context = sandbox.template_context(parent, observed)
    children: list[tuple[kinds.Template, dict[str, Any]]] = []
    seen: dict[tuple[str, str, str, str], str] = {}
    for template in kind.templates:
        for document in _render_template(environment, template, context, limits):
            child = placement.place(document, owner, kind, scope, template)
            meta = child["metadata"]
            group = apis.group_of(child["apiVersion"])
            identity = (group, child["kind"], meta.get("namespace", ""), meta["name"])
            if identity in seen:
                raise RenderError(f"{placement.describe(child)} is rendered twice (also by {seen[identity]})",
                                  file=str(template.path))
            seen[identity] = template.name
            children.append((template, child))
    return children


# -- one template -----------------------------------------------------------------------


def _render_template(
    environment: sandbox.Sandbox, template: kinds.Template, context: dict[str, Any], limits: sandbox.Limits
) -> list[Any]:
    """Render one template to its documents, values filled in, empty documents dropped."""
    run = sandbox.Run(limits)
    token = sandbox.CURRENT_RUN.set(run)
    try:
        text = _generate(environment, template, context, run)
        return [doc for doc in _parse(text, run, template) if doc is not None]
    finally:
        sandbox.CURRENT_RUN.reset(token)


def _generate(
    environment: sandbox.Sandbox, template: kinds.Template, context: dict[str, Any], run: sandbox.Run
) -> str:
    file = str(template.path)
    chunks: list[str] = []
    try:
        for chunk in environment.get_template(template.name).generate(context):
            run.tick()
            run.charge(len(chunk))
            chunks.append(chunk)
    except TemplateSyntaxError as error:
        raise RenderError(f"template syntax error: {error.message}", file=error.filename or file,
                          line=error.lineno) from error
    except Exception as error:  # every failure inside a template is reported with its location
        raise _located(error, environment, file) from error
    return "".join(chunks)


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
        message = f"not set {where} (use `is defined` or `| default(...)` if it is optional)"
    elif isinstance(error, sandbox.OverBudget | sandbox.Unplaceable):
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


def _construct_str(loader: _RenderLoader, node: yaml.ScalarNode) -> str | _Slot:
    value = loader.construct_scalar(node)
    if not node.style:  # plain (libyaml says "", the Python parser None)
        match = loader.run.token.fullmatch(value)
        if match is not None:
            return _Slot(int(match.group(1)))
    return value


class _RenderLoader(StrictLoader):
    """``StrictLoader`` that turns whole-token plain scalars into slots."""

    run: sandbox.Run
    yaml_constructors = {**StrictLoader.yaml_constructors, "tag:yaml.org,2002:str": _construct_str}


def _parse(text: str, run: sandbox.Run, template: kinds.Template) -> list[Any]:
    """The documents of the rendered ``text``, with the values filled in."""
    if len(re.findall(run.nonce, text, re.IGNORECASE)) != len(run.token.findall(text)):
        raise RenderError(
            "an interpolation was altered after it was printed (by a `{% filter %}` block?); "
            "apply filters to values inside {{ }} instead",
            file=str(template.path),
        )
    documents: list[Any] = []
    try:
        check_no_anchors(text)
        loader = _RenderLoader(text)
        loader.run = run
        try:
            while loader.check_node():
                documents.append(loader.construct_document(loader.get_node()))
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        line, problem = yaml_problem(error)
        raise RenderError(_quote_problem(text, line, problem, run), file=str(template.path)) from error
    return [_Filler(run, template).fill(doc, "") for doc in documents]


def _quote_problem(text: str, line: int | None, problem: str, run: sandbox.Run) -> str:
    """A YAML problem in rendered output, quoting the rendered line with ``{{…}}`` for each value.

    The values themselves are left out: they may be secrets, and the message
    ends up in conditions and events.
    """
    if line is None:
        return f"the rendered output is not valid YAML: {problem}"
    lines = text.splitlines()
    quoted = run.token.sub("{{…}}", lines[line - 1]) if 0 < line <= len(lines) else ""
    return f"the rendered output is not valid YAML at rendered line {line}: {problem}: {quoted.strip()!r}"


class _Filler:
    """Put the values into a parsed document; refuse keys that collide once filled in."""

    def __init__(self, run: sandbox.Run, template: kinds.Template) -> None:
        self.run = run
        self.template = template

    def fill(self, value: Any, path: str) -> Any:
        if isinstance(value, _Slot):
            return self.run.take(value.index)
        if isinstance(value, str):
            return self.run.resolve(value)
        if isinstance(value, dict):
            filled: dict[Any, Any] = {}
            for key, item in value.items():
                name = self.run.text(key.index) if isinstance(key, _Slot) else (
                    self.run.resolve(key) if isinstance(key, str) else key
                )
                if name in filled:
                    raise RenderError(
                        f"duplicate key {name!r} once the values are filled in", file=str(self.template.path),
                        field=path or None,
                    )
                filled[name] = self.fill(item, sandbox.join_path(path, name))
            return filled
        if isinstance(value, list):
            return [self.fill(item, f"{path}[{index}]") for index, item in enumerate(value)]
        return value

