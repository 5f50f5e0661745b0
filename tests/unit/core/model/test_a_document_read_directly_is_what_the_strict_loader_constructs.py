"""`yamlrules.constructed` (how a file's documents are built) gives what `StrictLoader`'s own
constructors give, value for value and refusal for refusal: on documents that take its direct way
and on every kind it hands back (tags, keys that are not strings, repeated and merge keys, bad
scalars), and on generated texts."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.model.language import yamlrules
from tests.unit import _jsondata


def outcomes(text: str) -> tuple[list[Any], list[Any]]:
    """Each document of ``text`` as `constructed` builds it and as the loader does, an error as its
    message and line."""

    def each(build: Any) -> list[Any]:
        loader = yamlrules.StrictLoader(text)
        found: list[Any] = []
        try:
            while loader.check_node():
                node = loader.get_node()
                try:
                    found.append(("data", build(loader, node)))
                except yaml.YAMLError as error:
                    found.append(("error", yamlrules.yaml_problem(error)))
        finally:
            loader.dispose()
        return found

    direct = each(yamlrules.constructed)
    own = each(lambda loader, node: loader.construct_document(node))
    return direct, own


TEXTS = [
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n",
    "a: [1, 2.5, true, null, ~, '3', \"x\"]\nb: {c: {d: []}}\n",
    "replicas: 3\nport: 0x1F\nratio: 1e3\nempty: ''\nno: off\n",
    "1: int key\ntrue: bool key\n",
    "a: 1\na: 2\n",
    "<<: {a: 1}\n",
    "!!str <<: 1\n",
    "a: !!str 1\nb: !!int '2'\nc: !!float '1.5'\n",
    "a: !!map [1]\n",
    "a: !!map abc\n",
    "a: !!seq abc\n",
    "a: !!int [1]\n",
    "a: !!str {b: 1}\n",
    "a: !!set {x, y}\n",
    "a: !local {b: 1}\n",
    "a: !!str [1]\n",
    "a: !!omap [b: 1]\n",
    "a: !!int x\n",
    "a: !!binary aGk=\n",
    "a: 99999999999999999999\n",
    "a: .nan\n",
    "? [a]\n: 1\n",
    "~: null key\n",
    "- a\n- {b: c}\n- [d]\n",
    "plain scalar document\n",
    "---\na: 1\n---\n---\nb: [x, {c: !!bool 'true'}]\n",
]


@pytest.mark.parametrize("text", TEXTS, ids=range(len(TEXTS)))
def test_a_document_is_built_or_refused_as_the_loader_builds_or_refuses_it(text: str) -> None:
    direct, own = outcomes(text)
    assert direct == own
    assert direct  # the text has documents: the comparison compared something


_WORDS = st.sampled_from(["1", "0x10", "true", "off", "null", "~", "1.5", "-.inf", "<<", "2026-01-01", "="])
_STRINGS = st.one_of(st.text(max_size=12), _WORDS)
# Keys of every type too: the loader makes a string of some and refuses others.
_DATA = _jsondata.data(
    _STRINGS, st.one_of(_STRINGS, st.integers(), st.booleans(), st.none(), st.floats()), leaves=20
)


@settings(max_examples=300, deadline=None)
@given(_DATA, st.sampled_from([False, True, None]))
def test_generated_texts_are_built_as_the_loader_builds_them(data: Any, flow: bool | None) -> None:
    try:
        text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True)
    except yaml.YAMLError:
        return  # nothing PyYAML writes to compare
    try:
        direct, own = outcomes(text)
    except yaml.YAMLError:
        return  # refused before construction (the shape check), for both alike
    assert direct == own
