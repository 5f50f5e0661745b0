"""Jinja's internals, in one place: what Stencil relies on beyond Jinja's documented API.

Tested against Jinja 3.1.6, and bound to its series: ``pyproject.toml`` asks for
``jinja2>=3.1.6,<3.2`` (``TESTED`` says the same, and
``tests/unit/core/test_jinja_internals_are_those_of_a_tested_version.py`` fails on a Jinja
outside it, or one without an internal listed here).  The rest of the templating
package uses Jinja's public API only (environments, the sandbox's ``call``,
``getattr``, ``call_binop`` and ``intercepted_binops``, ``finalize``, ``Undefined``,
template nodes), and goes through this module for the rest, so a new Jinja is
checked here, as httpx and kopf keep a foreign library in one place.

What is touched, and why:

- ``Template.root_render_func``, ``Template.new_context(shared=True)`` and
  ``Environment.handle_exception`` (``generated``, ``shared_context``, ``run``):
  ``Template.generate``, in a context of exactly the names given, since merging the
  globals for each template cost more than the rest of a render; a status rule runs
  for what it sets in a context its kind's rules share.
- ``jinja2.parser.Parser`` (``parse_expression``): a status rule parsed once, as
  ``compile_expression`` parses it, to check its depth and names before compiling.
- the generators of compiled templates (``gi_yieldfrom``, ``gi_frame``), and the file
  name Jinja compiles a template's code under (``suspended_at``, ``code_line``): where a
  template was when it yielded a chunk, which costs nothing to read while rendering.
  Jinja delegates a ``{% block %}`` and ``{% extends %}`` with ``yield from``.
- the tracebacks Jinja rewrites so a template's frames carry its own file and line
  (``raised_at``), and the line table of a compiled template
  (``Template.get_corresponding_lineno``, built from ``debug_info``; ``template_line``).
- ``CodeGenerator``, its constructor and the environment's ``code_generator_class``
  (``code_generator``): a generator mixed in before the environment's own writes the
  code that runs, and notes what Jinja does not (``TextLines``).
- ``CodeGenerator.visit_Output``, ``_output_const_repr``, ``writeline`` and
  ``code_lineno`` (``TextLines``): Jinja's line table has no entry for a ``yield`` of
  template text, so the code line of each is noted as it is written.
- ``CodeGenerator.visit_Template``, ``visit_FilterBlock`` and ``visit_CallBlock`` (with
  the frame and writing helpers they use) and a hand-made ``nodes.InternalName``
  (``BlockHooks``): the sandbox rewrites a tree before its code is written and passes
  what ``{% filter %}`` and ``{% call %}`` blocks write through calls of its own.
- ``Environment.concat`` (``concat_with``): what compiled code joins the text of a
  ``{% set %}`` block, a macro or ``caller()`` with.
- ``jinja2.utils.missing`` (``missing``): the ``obj`` an ``Undefined`` has when a
  plain name, not a field, is undefined.

- ``CodeGenerator.blockvisit`` and ``code_lineno``, checked against the compiled
  template's private ``_debug_info`` (``block_lines``): the Python lines of each block
  body, so ``stencil lint`` learns from a line tracer which branches no example takes.
- ``jinja2.utils._PassArg`` (``passes_context``): whether Jinja hands a filter its
  context, environment or eval context before the value, so the budgets bind a
  filter's own parameters.
- ``Macro.caller`` and ``Macro.catch_kwargs`` (``takes_caller``): whether a macro reads
  ``caller``, so the sandbox calls one that does not from an empty ``{% call %}`` block
  without the caller Jinja would refuse.

The module stands under every room of the core (the kind model's budgets, templating,
the offline linter), so each reaches Jinja's internals here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from types import CodeType
from typing import Any, TypeVar

import jinja2
from jinja2 import Environment, Template, compiler, nodes
from jinja2.compiler import Frame
from jinja2.exceptions import TemplateSyntaxError
from jinja2.parser import Parser
from jinja2.runtime import Context, Macro
from jinja2.utils import missing

__all__ = [
    "TESTED",
    "BlockHooks",
    "Pieces",
    "TextLines",
    "block_lines",
    "code_generator",
    "code_line",
    "concat_with",
    "filter_chain",
    "generated",
    "missing",
    "parse_expression",
    "passes_context",
    "raised_at",
    "run",
    "shared_context",
    "suspended_at",
    "takes_caller",
    "template_line",
    "text_lines",
]

# The Jinja releases this module is tested against: from the first, up to (not including) the second.
TESTED = ((3, 1, 6), (3, 2))

# Each internal named above that a class or module holds, as (owner, attribute), for the test that a
# Jinja has them all; those an instance holds (``root_render_func``, ``code_lineno``, a macro's
# ``caller``) it runs.
RELIED_ON: tuple[tuple[object, str], ...] = (
    (Template, "new_context"),
    (Template, "get_corresponding_lineno"),
    (Environment, "handle_exception"),
    (Environment, "concat"),
    (Environment, "code_generator_class"),
    (compiler.CodeGenerator, "visit_Output"),
    (compiler.CodeGenerator, "_output_const_repr"),
    (compiler.CodeGenerator, "writeline"),
    (compiler.CodeGenerator, "visit_Template"),
    (compiler.CodeGenerator, "visit_FilterBlock"),
    (compiler.CodeGenerator, "visit_CallBlock"),
    (compiler.CodeGenerator, "visit_Filter"),
    (compiler.CodeGenerator, "visit_Call"),
    (compiler.CodeGenerator, "macro_body"),
    (compiler.CodeGenerator, "macro_def"),
    (compiler.CodeGenerator, "buffer"),
    (compiler.CodeGenerator, "blockvisit"),
    (compiler.CodeGenerator, "enter_frame"),
    (compiler.CodeGenerator, "leave_frame"),
    (compiler.CodeGenerator, "start_write"),
    (compiler.CodeGenerator, "end_write"),
    (Frame, "inner"),
    (Parser, "parse_expression"),
    (jinja2.utils, "missing"),
    (jinja2.utils, "_PassArg"),
)

# -- running a compiled template -------------------------------------------------------------


def shared_context(template: Template, names: dict[str, Any]) -> Context:
    """A context of exactly ``names`` (globals merged in already), for ``run`` to run templates in:
    a status rule writes its ``result`` there, and the kind's rules share one."""
    return template.new_context(names, shared=True)


def run(template: Template, context: Context) -> None:
    """Run ``template`` in ``context`` for what it sets there, not for its output."""
    for _ in template.root_render_func(context):
        pass


def parse_expression(environment: Environment, text: str) -> nodes.Expr:
    """``text`` parsed as one expression, as ``Environment.compile_expression`` parses it."""
    parser = Parser(environment, text, state="variable")
    expression = parser.parse_expression()
    if not parser.stream.eos:
        raise TemplateSyntaxError("chunk after expression", parser.stream.current.lineno, None, None)
    return expression


def generated(template: Template, names: dict[str, Any]) -> Iterator[str]:
    """What ``template.generate`` does, in a context of exactly ``names`` (globals merged in
    already): the template's output chunks, an error raised with the template's own lines."""
    context = template.new_context(names, shared=True)
    try:
        yield from template.root_render_func(context)
    except Exception:
        yield template.environment.handle_exception()


def suspended_at(generator: Any) -> tuple[CodeType, int]:
    """Where a compiled template is suspended (``generated``'s generator, just after it yielded):
    its code and instruction, which cost nothing to read (a frame's line number is computed, and
    would double the cost of rendering).  ``generate`` delegates to the template's root function,
    which delegates in turn to a ``{% block %}``'s."""
    inner = generator
    while (deeper := inner.gi_yieldfrom) is not None:
        inner = deeper
    frame = inner.gi_frame
    return frame.f_code, frame.f_lasti


def code_line(code: CodeType, offset: int) -> int:
    """The line of the compiled template's Python code that the instruction at ``offset`` belongs to."""
    line = 0
    for start, _end, number in code.co_lines():
        if start > offset:
            break
        if number is not None:
            line = number
    return line


def template_line(template: Template, code_line: int) -> int:
    """The template line that the compiled code at ``code_line`` was written for (Jinja's line table)."""
    return template.get_corresponding_lineno(code_line)


def takes_caller(macro: Macro) -> bool:
    """Whether a ``{% call %}`` block may hand ``macro`` its caller: it reads ``caller``, or takes
    any keyword (Jinja refuses the call otherwise)."""
    return bool(macro.caller or macro.catch_kwargs)


def raised_at(error: BaseException, filenames: Iterable[str]) -> tuple[str, int] | None:
    """The template file and line an exception raised while a template ran came from, if any.

    Jinja rewrites the traceback so a template's frames carry the template's file and line;
    the innermost frame of one of ``filenames`` is the one.
    """
    found: tuple[str, int] | None = None
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_filename in filenames:
            found = frame.tb_frame.f_code.co_filename, frame.tb_lineno
        frame = frame.tb_next
    return found


def concat_with(capture: Callable[[Iterable[str]], str]) -> Any:
    """An environment class's ``concat``: how compiled code joins the text a ``{% set %}``
    block, a macro or ``caller()`` captured into the value they give."""
    return staticmethod(capture)


# -- code generators -----------------------------------------------------------------------

Generator = TypeVar("Generator", bound=compiler.CodeGenerator)


def code_generator(environment: Environment, mixin: type[Generator], name: str, file: str) -> Generator:
    """A code generator for one template: ``mixin`` before the environment's own, so that the code
    it writes is the code that runs (same lines, same instructions)."""
    mixed = type(mixin.__name__, (mixin, environment.code_generator_class), {})
    generator: Generator = mixed(environment, name, file, None, False, environment.optimized)
    return generator


# A run of template text as Jinja yields it: the pieces it joined, each (template line it starts on, text).
Pieces = tuple[tuple[int, str], ...]


class TextLines(compiler.CodeGenerator):
    """Jinja's code generator, noting where in the template each ``yield`` of template text comes from.

    Jinja's own line table (``Template.debug_info``) has no entry for those
    yields, since no node is written with them, so a run of text would be placed
    at whatever statement came before it (an ``{% if %}`` many lines up).  The
    generated code is the same, so its line numbers are those of the compiled template.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.text_lines: dict[int, Pieces] = {}
        self._runs: list[Pieces] = []
        self._pending: Pieces | None = None

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


def text_lines(environment: Environment, source: str, name: str, file: str) -> dict[int, Pieces]:
    """Code line of each ``yield`` of template text in the template's compiled code -> the text's pieces."""
    generator = code_generator(environment, TextLines, name, file)
    generator.visit(environment.parse(source, name, file))
    return generator.text_lines


class BlockHooks(compiler.CodeGenerator):
    """Jinja's code generator with a template's tree handed to ``rewrite`` before any code is written
    for it, and what ``{% filter %}`` and ``{% call %}`` blocks write passed through calls.

    ``rewrite`` runs before Jinja collects the filters a template uses, so a filter
    it adds is among them.  A ``{% filter %}`` block's innermost filter reads the
    block's text joined as it stands (Jinja would pass ``concat``, which a block's
    value is made with), and its result is written as ``filter_block_output`` (an
    expression of the compiled code, opening a call) ``+ result + ")"``; a ``{% call %}``
    block's as ``call_block_output + result + ")"``.  Both visits are Jinja's own
    otherwise.
    """

    filter_block_output = "("
    call_block_output = "("

    def rewrite(self, tree: nodes.Template) -> None:
        """Change ``tree`` before its code is written; nothing here."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        self.rewrite(node)
        super().visit_Template(node, frame)

    def visit_FilterBlock(self, node: nodes.FilterBlock, frame: Frame) -> None:
        filter_frame = frame.inner()
        filter_frame.symbols.analyze_node(node)
        self.enter_frame(filter_frame)
        self.buffer(filter_frame)
        self.blockvisit(node.body, filter_frame)
        # An internal name is written as is; Jinja's constructor refuses to make one by hand.
        text = nodes.InternalName.__new__(nodes.InternalName)
        nodes.Node.__init__(text, f'"".join({filter_frame.buffer})', lineno=node.lineno)
        filter_chain(node)[-1].node = text
        self.start_write(frame, node)
        self.write(self.filter_block_output)
        self.visit_Filter(node.filter, filter_frame)
        self.write(")")
        self.end_write(frame)
        self.leave_frame(filter_frame)

    def visit_CallBlock(self, node: nodes.CallBlock, frame: Frame) -> None:
        call_frame, macro_ref = self.macro_body(node, frame)
        self.writeline("caller = ")
        self.macro_def(macro_ref, call_frame)
        self.start_write(frame, node)
        self.write(self.call_block_output)
        self.visit_Call(node.call, frame, forward_caller=True)
        self.write(")")
        self.end_write(frame)


def filter_chain(block: nodes.FilterBlock) -> list[nodes.Filter]:
    """The filters of a ``{% filter a | b %}`` block, outermost first (``b``, then ``a``)."""
    chain: list[nodes.Filter] = []
    link: nodes.Node | None = block.filter
    while isinstance(link, nodes.Filter):
        chain.append(link)
        link = link.node
    return chain


class _BlockLines(compiler.CodeGenerator):
    """Notes the Python lines of every block a code generator writes, and changes nothing it writes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.block_lines: dict[int, tuple[int, int]] = {}

    def blockvisit(self, body: Iterable[nodes.Node], frame: Frame) -> None:
        start = self.code_lineno
        super().blockvisit(body, frame)
        # Lines (start, end]; a block begins with a `pass` line, which runs whenever the block is entered.
        self.block_lines.setdefault(id(body), (start, self.code_lineno))


def block_lines(
    environment: Environment, tree: nodes.Template, name: str, file: str
) -> dict[int, tuple[int, int]] | None:
    """The Python lines of each block body of ``tree`` (by ``id`` of the body) in the template
    ``environment`` compiles as ``name``; None if that template's code is not the code written here."""
    generator = code_generator(environment, _BlockLines, name, file)
    generator.visit(tree)
    compiled = environment.get_template(name)
    # The same generator over the same tree writes the same code: a different line table would
    # mean the lines that ran are not the lines noted here.
    if "&".join(f"{t}={p}" for t, p in generator.debug_info) != compiled._debug_info:
        return None
    return generator.block_lines


def passes_context(function: Callable[..., Any]) -> bool:
    """Whether Jinja calls the filter ``function`` with its context, eval context or environment first."""
    return jinja2.utils._PassArg.from_obj(function) is not None
