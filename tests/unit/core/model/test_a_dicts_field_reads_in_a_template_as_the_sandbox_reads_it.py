"""``spec.image`` on a plain dict is read without the sandbox's failed attribute lookup first; what
it gives is what the sandbox gives, for keys that are dict methods' names too (``items``,
``keys``: the method, as Jinja has it), for missing keys (undefined) and for dunder names."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from jinja2 import Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment

from engine.core.model import budgets
from engine.core.model.language import expressions

NAMES = st.one_of(
    st.sampled_from(["items", "keys", "get", "pop", "__class__", "__len__", "spec", "image", "copy"]),
    st.text(min_size=1, max_size=8),
)


def seen(value: Any) -> Any:
    if isinstance(value, Undefined):
        return ("undefined", type(value))
    if callable(value):
        return ("callable", getattr(value, "__name__", None), getattr(value, "__self__", None) is not None)
    return ("value", value)


@given(st.dictionaries(NAMES, st.integers(), max_size=5), NAMES)
def test_a_plain_dicts_attribute_reads_as_the_sandbox_reads_it(data: dict[str, Any], name: str) -> None:
    ours = expressions.ENVIRONMENT
    theirs = ImmutableSandboxedEnvironment(undefined=ours.undefined, autoescape=False)
    with budgets.running():
        assert seen(ours.getattr(data, name)) == seen(theirs.getattr(data, name))


def test_a_key_named_like_a_dict_method_gives_the_method_and_a_missing_key_undefined() -> None:
    environment = expressions.ENVIRONMENT
    with budgets.running():
        assert environment.getattr({"spec": 1}, "spec") == 1
        assert callable(environment.getattr({"items": 1}, "items"))
        assert isinstance(environment.getattr({}, "spec"), Undefined)
