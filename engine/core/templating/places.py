"""Places: from a line of a template's rendered text back to the template line that wrote it.

Nobody reads the rendered text, so a problem found in it (a YAML error, a field
placement refuses, a checker's finding) is reported at the template line that
wrote it.  Rendering notes, for each chunk Jinja yields, the compiled instruction
that yielded it, and nothing more (``generate``); a rendered line is traced back,
and the text composed again into YAML nodes to find it, only when a place is asked
for (``Output.place``, ``Output.node``).  A template that fails to compile or run
is reported at its line too (``failure``).  What this reads of Jinja's compiled
code is read through ``engine.core.jinja``.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import yaml
from jinja2 import TemplateNotFound
from jinja2.exceptions import SecurityError, TemplateSyntaxError, UndefinedError

from engine.core import jinja
from engine.core.model import budgets, kinds
from engine.core.model.errors import RenderError
from engine.core.model.language.documents import FieldPath, StrictLoader
from engine.core.templating import sandbox

# -- running a template, noting where each chunk came from ------------------------------------


# What ``sys.settrace`` takes.
Trace = Callable[[types.FrameType, str, Any], Any]


def generate(
    environment: sandbox.Sandbox,
    sources: tuple[kinds.Source, ...],
    template: kinds.Template,
    context: dict[str, Any],
    run: sandbox.Run,
    trace: Trace | None = None,
) -> Output:
    """Run ``template`` in ``context``, its output charged to ``run``: the text it wrote, able to say
    which template line each of its lines came from.

    With ``trace``, each step of the template (up to the chunk it yields) runs under
    ``sys.settrace(trace)``, and nothing else: a trace function slows every Python call made
    while it is set, and the work between two chunks is not the template's."""
    file = str(template.path)
    chunks: list[str] = []
    spots: list[tuple[types.CodeType, int]] = []
    try:
        generator = jinja.generated(environment.get_template(template.name), context)
        for chunk in generator if trace is None else _steps_under(trace, generator):
            chunks.append(chunk)
            spots.append(jinja.suspended_at(generator))
            run.tick()
            run.charge(len(chunk))
    except Exception as error:  # every failure inside a template is reported with its location
        # The clock and the output budget are checked here, between two steps of the template,
        # where no frame of it is raising: such a failure is at the chunk the template last wrote.
        written = Output(environment, sources, template, run, chunks, spots) if chunks else None
        raise failure(error, environment, file, written) from error
    return Output(environment, sources, template, run, chunks, spots)


def _steps_under(trace: Trace, generator: Iterator[str]) -> Iterator[str]:
    while True:
        before = sys.gettrace()
        sys.settrace(trace)
        try:
            chunk = next(generator, None)
        finally:
            sys.settrace(before)
        if chunk is None:
            return
        yield chunk


def failure(
    error: Exception, environment: sandbox.Sandbox, file: str, written: Output | None = None
) -> RenderError:
    """The ``RenderError`` for a template that failed to compile or run, at its template line.

    ``written`` is what the template had written when it failed: an error raised outside its
    code (its clock or output budget, checked between its steps) is placed at the last of it."""
    if isinstance(error, TemplateSyntaxError):
        return RenderError(
            f"template syntax error: {error.message}", file=error.filename or file, line=error.lineno
        )
    return _located(error, environment, file, written)


def _located(
    error: Exception, environment: sandbox.Sandbox, default_file: str, written: Output | None
) -> RenderError:
    """A ``RenderError`` for an exception raised while a template ran, at the template line it came from."""
    place = jinja.raised_at(error, environment.filenames)
    if place is None and written is not None:
        place = written.last_place()
    file, line = place or (default_file, None)
    field = None
    if isinstance(error, sandbox.MissingField):
        field = error.field
        where = "in the observed child" if field.startswith(("children", "child(")) else "in the parent"
        message = error.reason or f"not set {where} (use `is defined` or `| default(...)` if it is optional)"
    elif isinstance(error, budgets.BudgetError | sandbox.Unplaceable):
        message = str(error)
    elif isinstance(error, UndefinedError):
        message = error.message or "undefined value"
    elif isinstance(error, SecurityError):
        message = f"not allowed in a template: {error}"
    elif isinstance(error, RecursionError):
        message = "the template recurses too deeply"
    elif isinstance(error, TemplateNotFound):
        message = sandbox.unknown_file(str(error.name))
    else:
        message = f"{type(error).__name__}: {error}"
    reason = error.reason if isinstance(error, budgets.BudgetError) else None  # OverBudget, NotAllowed
    return RenderError(message, file=file, line=line, field=field, reason=reason)


# -- from rendered lines back to template lines ----------------------------------------------


class Output:
    """One template's rendered text, able to say which template line each rendered line came from.

    Jinja yields a template's output in chunks: runs of the template's own
    text, copied verbatim, and the tokens that stand for values, which hold no
    newline.  ``generate`` notes, for each chunk, the line of compiled code
    that yielded it; nothing more is done while rendering, so that rendering
    stays as fast as it was.  Only when a place is asked for (a YAML error, a
    checker's ``Located.where``) is a rendered line traced back: to the chunk
    it starts with, then to the template line that chunk starts on, plus the
    newlines before it inside the chunk.
    """

    def __init__(
        self,
        environment: sandbox.Sandbox,
        sources: tuple[kinds.Source, ...],
        template: kinds.Template,
        run: sandbox.Run,
        chunks: list[str],
        spots: list[tuple[types.CodeType, int]],
    ) -> None:
        self.environment = environment
        self.sources = sources  # the kind's templates and partials: where its code may have come from
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
        (``substitution._Skeletons``), and most renders never need a line.
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
        return self._chunk_place(index, newlines)

    def last_place(self) -> tuple[str, int]:
        """The template file and line of the last chunk written."""
        return self._chunk_place(len(self._chunks) - 1, 0)

    def _chunk_place(self, index: int, newlines: int) -> tuple[str, int]:
        """The template file and line of the line after ``newlines`` newlines of chunk ``index``."""
        code, instruction = self._spots[index]
        file, code_line = code.co_filename, jinja.code_line(code, instruction)
        compiled = next((s for s in self.sources if str(s.path) == file), None)
        if compiled is None:  # not code of this kind's files: only the template itself is known
            return str(self.template.path), 1
        pieces = _text_lines(self.environment, compiled).get(code_line)
        if pieces is not None:
            return file, _line_in(pieces, newlines)
        # A value's token, or text passed on from an {% include %}: the line of that statement.
        return file, jinja.template_line(self.environment.get_template(compiled.name), code_line)

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


def _line_in(pieces: jinja.Pieces, newlines: int) -> int:
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


@functools.lru_cache(maxsize=256)
def _text_lines(environment: sandbox.Sandbox, source: kinds.Source) -> dict[int, jinja.Pieces]:
    """Code line of each ``yield`` of template text in ``source``'s compiled code -> the text's pieces."""
    return jinja.text_lines(environment, source.text, source.name, str(source.path))


# -- problems found in the rendered text, at their template lines ------------------------------


def yaml_error(output: Output, line: int | None, problem: str) -> RenderError:
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


def at_template_line(error: RenderError, output: Output, position: int) -> RenderError:
    """``error``, about a field of the document at ``position``, at the template line of that field."""
    if error.line is not None:
        return error
    path: FieldPath = tuple(error.field.split(".")) if error.field else ()
    file, line = output.place(rendered_line(output.node(position), path, output.run))
    return type(error)(error.message, file=file, line=line, field=error.field)


def rendered_line(node: yaml.Node, path: FieldPath, run: sandbox.Run) -> int:
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
