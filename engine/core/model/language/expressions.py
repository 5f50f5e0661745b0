"""Status rules: Jinja expressions over the parent and its observed children.

``kind.yaml`` says how a parent's custom conditions and status fields follow
from what the cluster reports, as single Jinja expressions such as
``condition_status(child('Deployment', name ~ '-deployment'), 'Available')``.
They are compiled once, when the kind is loaded, and evaluated on every
reconcile against what ``engine.core.decisions.context`` gives a rule to see.

Two choices shape this module:

* Missing data is normal, not an error.  A child that has not been created yet,
  or has no ``status`` yet, must not make the rule fail; ``ChainableUndefined``
  lets ``child('Service', n).spec.ports[0].nodePort`` run to the end, and any
  undefined result (or an undefined value used in a comparison) becomes
  ``None``, which callers read as "not known yet".  Missing data compares with
  ``none`` as ``None`` does (``is none``, ``== none``; ``MissingData`` and
  ``reads_as_none``, which templates use too): a rule such as
  ``child('Job', n).status.completionTime is not none`` is false until the field is there.
* Mistakes in the rule itself are found at load time where possible: a syntax
  error, or a name that is neither in the status context nor a Jinja global
  (a typo such as ``sepc``), is a ``KindError`` naming the file, line and field.
  Everything else that goes wrong while evaluating is a ``KindError`` too,
  raised at evaluation time with the same location.

Rules call the filters and functions of ``library`` (``fromyaml``, ``quantity``...) as
templates do.  Expressions run in ``budgets.BoundedSandbox``, Jinja's immutable sandbox made
stricter: a rule can read the objects it is given but cannot modify them or reach
Python internals, it calls only the methods, filters and helpers on the budgets
module's allowlist, and each evaluation runs under a budget of its own (1 s, and
what its growing operations may build, each checked *before* it runs), so a
tenant's values (``spec.b ** spec.e`` with ``e = 10**8``) fail that rule, at its
line, instead of holding the engine.  An
attribute the sandbox would refuse (``spec.__class__``, any name with a leading
underscore) is refused when the rule is compiled, at its line, rather than only
once a status is derived.

Jinja parses and compiles by recursion, a dozen frames or so for each level of
brackets, and compiling a chain of filters takes time growing with the cube of
its length (200 take seconds).  So a rule is bounded before each step: at most
``MAX_EXPRESSION_CHARS`` characters and ``MAX_EXPRESSION_NESTING`` levels of
brackets before it is parsed (``_nesting``, one pass over the text), and a
syntax tree at most ``MAX_EXPRESSION_NESTING`` deep before it is compiled
(``_depth``).  A rule that still recurses too deeply is refused the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from jinja2 import ChainableUndefined, Template, TemplateSyntaxError, UndefinedError, meta, nodes
from jinja2.exceptions import SecurityError
from jinja2.runtime import Context, Undefined

from engine.core import jinja
from engine.core.model import budgets
from engine.core.model.errors import KindError
from engine.core.model.language import library


def reads_as_none(value: Any) -> bool:
    """The ``none`` test of status rules and templates: true of ``None`` and of missing data."""
    return value is None or isinstance(value, Undefined)


class MissingData(ChainableUndefined):
    """Missing data in a status rule: it chains to the end, and it equals ``none`` as ``None`` does."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return reads_as_none(other)

    def __ne__(self, other: object) -> bool:
        return not reads_as_none(other)

    def __hash__(self) -> int:
        return hash(None)


# The environment status rules run in; `stencil lint` checks rules against the same one.
ENVIRONMENT = budgets.BoundedSandbox(undefined=MissingData, autoescape=False)
ENVIRONMENT.tests["none"] = reads_as_none
ENVIRONMENT.filters.update(budgets.bounded_filters(library.FILTERS, own=library.FILTERS))
ENVIRONMENT.globals.update(library.FUNCTIONS)

# A status rule is a line or two (the longest in the seed kinds is under 100
# characters); these bounds are far above any real rule and far below what
# makes Jinja's parser or Python's compiler run out of recursion.
MAX_EXPRESSION_CHARS = 4096
MAX_EXPRESSION_NESTING = 50
_OPENING, _CLOSING = "([{", ")]}"

# ``children.<name>`` finds a mapping's own attribute before a key: these cannot be template ids.
RESERVED_IDS = frozenset(name for name in dir(dict) if not name.startswith("_"))

# The names status_context() provides; compile_expression() refuses any other free name.
CONTEXT_NAMES = frozenset(
    {
        "parent",
        "related",
        "references",
        "spec",
        "metadata",
        "status",
        "name",
        "namespace",
        "children",
        "child",
        "condition",
        "condition_status",
        "health",
    }
)


class Scope:
    """A status context made ready for the many rules of one reconcile.

    Building a Jinja context merges the environment's globals with the names, and
    costs more than evaluating a short rule; a kind's rules all read the same names,
    so they share one context.  A rule only writes its own ``result`` there, a name
    no rule can read (``compile_expression`` refuses it), so one rule never sees
    another's.
    """

    __slots__ = ("_context", "names")

    def __init__(self, names: Mapping[str, Any]) -> None:
        self.names = names
        self._context: Context | None = None

    def context(self, template: Template) -> Context:
        if self._context is None:
            # Shared: the names with the globals under them, as a template's own context has them.
            self._context = jinja.shared_context(template, {**ENVIRONMENT.globals, **self.names})
        return self._context


@dataclasses.dataclass(frozen=True)
class Expression:
    """A compiled status rule and where it came from (for error messages)."""

    text: str
    file: str
    line: int
    field: str
    # A template of one statement, ``{% set result = <the rule> %}``, as Jinja's compile_expression makes.
    compiled: Template = dataclasses.field(compare=False, hash=False, repr=False)
    # The names it reads (a readyWhen rule that reads each is one verdict per item).
    reads: frozenset[str] = dataclasses.field(default=frozenset(), compare=False, repr=False)

    def evaluate(self, context: Mapping[str, Any] | Scope) -> Any:
        """The rule's value in ``context``; ``None`` when the data it needs is missing."""
        scope = context if isinstance(context, Scope) else Scope(context)
        try:
            with budgets.running():
                run = scope.context(self.compiled)
                jinja.run(self.compiled, run)
                return _defined(run.vars["result"])
        except UndefinedError:
            # An undefined value was compared or added: the data is not there yet.
            return None
        except budgets.BudgetError as error:
            raise self._error(error.message, reason=error.reason) from error
        except SecurityError as error:
            raise self._error(f"not allowed in a status rule: {error}") from error
        except Exception as error:  # any other failure of the rule is reported the same way
            raise self._error(f"{type(error).__name__}: {error}") from error

    def _error(self, message: str, reason: str = "ExpressionFailed") -> KindError:
        return KindError(
            f"{message} (in expression {self.text!r})",
            file=self.file,
            line=self.line,
            field=self.field,
            reason=reason,
        )


def compile_expression(
    text: str, *, file: str, line: int, field: str, names: frozenset[str] = CONTEXT_NAMES
) -> Expression:
    """Compile one status rule, or raise ``KindError`` naming where it is.

    ``names`` are those the rule may read: a status rule's by default; a ``readyWhen`` reads others.
    """

    def error(message: str) -> KindError:
        return KindError(message, file=file, line=line, field=field)

    if not isinstance(text, str) or not text.strip():
        raise error("an expression must be a non-empty string")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise error(f"an expression of {len(text)} characters is longer than {MAX_EXPRESSION_CHARS}")
    if _nesting(text) > MAX_EXPRESSION_NESTING:
        raise error(f"the expression nests brackets more than {MAX_EXPRESSION_NESTING} levels deep")
    try:
        # Parsed once: to check its depth, to learn which names it reads, and to compile.
        expression = jinja.parse_expression(ENVIRONMENT, text)
        if _depth(expression) > MAX_EXPRESSION_NESTING:
            raise error(f"the expression nests more than {MAX_EXPRESSION_NESTING} levels deep")
        private = sorted(
            {node.attr for node in expression.find_all(nodes.Getattr) if node.attr.startswith("_")}
        )
        if private:
            raise error(f"not allowed in a status rule: the private attribute {private[0]!r} in {text!r}")
        tree = nodes.Template([nodes.Assign(nodes.Name("result", "store"), expression, lineno=1)], lineno=1)
        tree.set_environment(ENVIRONMENT)
        read = meta.find_undeclared_variables(tree)
        compiled = ENVIRONMENT.from_string(tree)
    except TemplateSyntaxError as exc:
        raise error(f"invalid expression {text!r}: {exc.message}") from exc
    except (RecursionError, SyntaxError) as exc:  # Python's compiler refuses what nests too deeply
        raise error("the expression nests too deeply to compile (split it, or use fewer levels)") from exc
    unknown = sorted(read - names - set(ENVIRONMENT.globals))
    if unknown:
        known = ", ".join(sorted(names))
        raise error(f"unknown name {', '.join(unknown)} in expression {text!r} (known: {known})")
    return Expression(text=text, file=file, line=line, field=field, compiled=compiled, reads=frozenset(read))


def _depth(tree: nodes.Node) -> int:
    """The depth of a syntax tree, found without recursion (the tree may be what is too deep)."""
    deepest = 0
    stack = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.iter_child_nodes())
    return deepest


def _nesting(text: str) -> int:
    """The deepest nesting of brackets in ``text``, brackets inside string literals aside."""
    deepest = depth = 0
    quote: str | None = None
    escaped = False
    for character in text:
        if quote is not None:
            if escaped:
                escaped = False
            elif character == "\\":
                escaped = True
            elif character == quote:
                quote = None
        elif character in "'\"":
            quote = character
        elif character in _OPENING:
            depth += 1
            deepest = max(deepest, depth)
        elif character in _CLOSING:
            depth = max(depth - 1, 0)
    return deepest


def child_ids_read(expression: Expression, mapping: str = "children") -> set[str]:
    """The template ids ``expression`` reads as ``children.<id>`` or ``children['<id>']`` (the
    reference ids it reads as ``references.<id>``, with ``mapping="references"``)."""
    return set(child_id_lines(ENVIRONMENT.parse("{{ " + expression.text + " }}"), mapping))


def child_id_lines(tree: nodes.Node, mapping: str = "children") -> dict[str, int]:
    """The template ids a syntax tree (a rule's or a template's) reads as ``children.<id>`` or
    ``children['<id>']`` (or as ``<mapping>.<id>``), each with the first line that reads it.

    Keys that start with a capital are kinds, not ids, and a mapping's own methods
    (``children.items()``) are not keys at all.  A key computed at run time
    (``children[spec.which]``) is not known here.
    """
    found: dict[str, int] = {}
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        assert isinstance(node, nodes.Getattr | nodes.Getitem)
        if not (isinstance(node.node, nodes.Name) and node.node.name == mapping):
            continue
        key: object = None
        if isinstance(node, nodes.Getattr):
            key = node.attr
        elif isinstance(node.arg, nodes.Const):
            key = node.arg.value
        if isinstance(key, str) and key[:1].islower() and key not in RESERVED_IDS:
            found[key] = min(found.get(key, node.lineno), node.lineno)
    return found


def _defined(value: Any) -> Any:
    """``value`` with every undefined part turned into ``None`` (status must be JSON)."""
    if isinstance(value, Undefined):
        return None
    if isinstance(value, (list, tuple)):
        return [_defined(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _defined(item) for key, item in value.items()}
    return library.data(value)
