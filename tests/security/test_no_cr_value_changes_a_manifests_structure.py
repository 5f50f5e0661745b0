"""Whatever the Jinja construct, a CR value never changes a manifest's structure: the property.

Templates are drawn from a grammar of the constructs that turn values into text
and text back into values — `{{ }}`, quoted and mixed scalars, `~`, `format`,
`replace` and `join` with values as arguments, `tojson`, `b64decode`, macros,
`{% set %}` blocks (with and without a filter), `{% call %}` blocks (of a macro,
and of a CR string's `format`), and `{% filter %}` blocks whose filter takes a
value as argument, decodes or chains — both inline and around whole keys and a
whole document.  Each is rendered with benign values and with hostile ones (line
breaks, `---`, `: `, flow brackets, comments, anchors, aliases, tags, quotes,
Unicode line separators, numbers and booleans as strings, empty and huge
strings).  The template takes no branch on a value, so its own logic decides the
same structure both times: the same documents, the same keys at the same paths,
the same apiVersion, kind, name and namespace, and every value a single scalar.
"""

from __future__ import annotations

import base64
import functools
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.templating import rendering, sandbox
from tests.unit import _kinds

MACROS = """\
{% macro same(x) %}{{ x }}{% endmacro %}
{% macro wrap(x) %}{{ x }}-{{ caller() }}{% endmacro %}
{% macro pairs(key, x) %}
  {{ key }}a: {{ x }}
  {{ key }}b: {{ caller() }}
{% endmacro %}
"""
HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n"

# -- the grammar: expressions that give a string, and the places they are put -----------------

# An expression is a tree: a leaf names a field of the spec, a node a construct over its children.
Expr = Any
LEAVES = ["spec.v", "spec.w", "(spec.b | b64decode)", "name"]
UNARY = ["concat-const", "macro", "set", "set-filtered", "tojson", "lower"]
BINARY = ["concat", "format", "replace", "join"]
# Every construct over values, and each nested in the others once: up to three levels deep.
EXPRESSIONS: list[Expr] = [
    *LEAVES,
    *((op, "spec.v") for op in UNARY),
    *((op, "spec.v", "spec.w") for op in BINARY),
    *((op, ("replace", "spec.v", "spec.w")) for op in UNARY),
    *((op, ("macro", "spec.v"), ("set", "spec.w")) for op in BINARY),
    ("set-filtered", ("concat", ("set", "spec.v"), ("macro", ("tojson", "spec.w")))),
    ("join", ("set-filtered", "(spec.b | b64decode)"), ("format", ("lower", "spec.w"), "name")),
]


class _Writer:
    """Turns expression trees and sites into template text, hoisting `{% set %}` blocks above."""

    def __init__(self) -> None:
        self.preludes: list[str] = []

    def expr(self, tree: Expr) -> str:
        if isinstance(tree, str):
            return tree
        kind, *children = tree
        parts = [self.expr(child) for child in children]
        if kind == "concat-const":
            return f"({parts[0]} ~ ': #x')"
        if kind == "macro":
            return f"same({parts[0]})"
        if kind in ("set", "set-filtered"):
            variable = f"s{len(self.preludes)}"
            if kind == "set":
                self.preludes.append(f"{{% set {variable} %}}[{{{{ {parts[0]} }}}}]{{% endset %}}\n")
            else:
                self.preludes.append(
                    f"{{% set {variable} | b64decode %}}{{{{ {parts[0]} | b64encode }}}}{{% endset %}}\n"
                )
            return variable
        if kind == "tojson":
            return f"({parts[0]} | tojson)"
        if kind == "lower":
            return f"({parts[0]} | lower)"
        left, right = parts
        return {
            "concat": f"({left} ~ {right})",
            "format": f"('{{}}: {{}}'.format({left}, {right}))",
            "replace": f"({left} | replace('value', {right}))",
            "join": f"([{left}, 'k: v'] | join({right}))",
        }[kind]


# Where an expression is put, at the place of one key's value (`  kN: ...`) or of keys (`  ...`).
INLINE = {
    "plain": "{{{{ {e} }}}}",
    "quoted": '"{{{{ {e} }}}}"',
    "mixed": "pre-{{{{ {e} }}}}-post",
    "filter-replace": "{{% filter replace('__V__', {e}) %}}__V__{{% endfilter %}}",
    "filter-replace-quoted": "{{% filter replace('__V__', {e}) %}}'x __V__'{{% endfilter %}}",
    "filter-replace-kwarg": "{{% filter replace('__V__', new={e}) %}}x __V__{{% endfilter %}}",
    "filter-decode": "{{% filter b64decode %}}{{{{ {e} | b64encode }}}}{{% endfilter %}}",
    "filter-decode-chain": (
        "{{% filter b64decode | trim | replace('x', {e}) %}}{{{{ {e} | b64encode }}}}{{% endfilter %}}"
    ),
    "filter-tojson": "{{% filter tojson %}}{{{{ {e} }}}}{{% endfilter %}}",
    "filter-indent": "{{% filter indent(2) %}}{{{{ {e} }}}}{{% endfilter %}}",
    "call-macro": "{{% call wrap({e}) %}}{{{{ {e} }}}}{{% endcall %}}",
    "call-cr-string": "{{% call spec.f.format() %}}{{{{ {e} }}}}{{% endcall %}}",
}
BLOCK = {
    "filter-replace-keys": (
        "{{% filter replace('__V__', {e}) %}}\n"
        '  {k}a: __V__\n  {k}b: "__V__"\n  {k}c: [__V__]\n'
        "{{% endfilter %}}\n"
    ),
    "filter-indent-keys": "{{% filter indent(2, true) %}}\n{k}a: {{{{ {e} }}}}\n{k}b: x\n{{% endfilter %}}\n",
    "call-keys": "{{% call pairs('{k}', {e}) %}}{{{{ {e} }}}}{{% endcall %}}\n",
}
# ... or of a document of its own, after the first.
DOCUMENT = {
    "filter-document": (
        "{{% filter replace('__V__', {e}) %}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n"
        "  name: {k}\ndata:\n  x: __V__\n{{% endfilter %}}\n"
    ),
}
SITES = sorted(INLINE) + sorted(BLOCK) + sorted(DOCUMENT)


def template(expression: Expr) -> str:
    """A ConfigMap with every site of the grammar, each given ``expression``, and a document of its own."""
    writer = _Writer()
    keys, documents = [], []
    for number, site in enumerate(SITES):
        text = writer.expr(expression)
        if site in INLINE:
            # A newline after a block's closing tag is trimmed (`trim_blocks`): the second one ends the line.
            keys.append(f"  k{number}: " + INLINE[site].format(e=text) + "\n\n")
        elif site in BLOCK:
            keys.append(BLOCK[site].format(e=text, k=f"b{number}"))
        else:
            documents.append(DOCUMENT[site].format(e=text, k=f"d{number}"))
    return MACROS + "".join(writer.preludes) + HEAD + "".join(keys) + "".join(documents)


# One kind per expression, each compiled once; what each renders with benign values, once.
KINDS = [_kinds.kind(template(expression), collection=True) for expression in EXPRESSIONS]  # several docs


# -- the values ---------------------------------------------------------------------------------

HOSTILE_PIECES = [
    "\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: stolen\n",
    "a: b",
    "k0: injected",
    "{a: 1}",
    "[1, 2]",
    "# comment",
    "&anchor x",
    "*alias",
    "!!python/object:os.system",
    "'",
    '"',
    "\u2028\u2029\u0085",
    "\r\n  - item",
    "|\n  block",
    "> folded",
    "? key",
    "@`%",
    "\t",
    "{{ spec.v }}",
    "stencilv0123456789abcdef0123x0z",
    "123",
    "true",
    "null",
    "~",
    "0x1F",
    ".inf",
    "1e3",
    "",
    "x" * 1_000,
    "\n" * 200,
]
ALPHABET = "\n\r\t :-#{}[],&*!|>'\"%@`?\u2028\u2029\u0085\ufeffab0"
_random = random.Random(0)
# Each piece, each pair of pieces, and strings of the characters YAML reads as syntax: drawn from a
# list, which costs hypothesis far less per example than building strings would.
HOSTILE = sorted(
    {
        *HOSTILE_PIECES,
        *(a + b for a in HOSTILE_PIECES for b in HOSTILE_PIECES),
        *("".join(_random.choices(ALPHABET, k=_random.randrange(31))) for _ in range(300)),
    }
)
WITHOUT_BRACES = [text for text in HOSTILE if "{" not in text and "}" not in text]  # str.format's own
BENIGN = {"v": "value", "w": "other", "f": "fmt"}


def spec(v: str, w: str, f: str) -> dict[str, str]:
    return {"v": v, "w": w, "f": f, "b": base64.b64encode(v.encode()).decode()}


# -- the structure ------------------------------------------------------------------------------


def shape(value: Any) -> Any:
    """The structure of a parsed document: its mappings' keys and its lists' lengths, leaves as `.`."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return "."


def identities(children: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (c["apiVersion"], c["kind"], c["metadata"]["name"], c["metadata"].get("namespace")) for c in children
    ]


# The time budget is not the property: a shared machine must not fail it.
LIMITS = sandbox.Limits(seconds=60)


@functools.cache
def benign(index: int) -> list[dict[str, Any]]:
    return rendering.render(KINDS[index], _kinds.parent(spec(**BENIGN)), [], limits=LIMITS)


@settings(max_examples=10_000, deadline=None)
@given(
    index=st.sampled_from(range(len(KINDS))),
    v=st.sampled_from(HOSTILE),
    w=st.sampled_from(HOSTILE),
    f=st.sampled_from(WITHOUT_BRACES),
)
def test_no_cr_value_changes_the_documents_keys_or_identities(index: int, v: str, w: str, f: str) -> None:
    hostile = rendering.render(KINDS[index], _kinds.parent(spec(v, w, f)), [], limits=LIMITS)

    assert identities(hostile) == identities(benign(index))
    assert [shape(child) for child in hostile] == [shape(child) for child in benign(index)]
