"""A template asks whether a field is there by comparing it with none, as on None.

``spec.completionTime is not none`` is false when the field is not set (it was
true, silently, since Jinja's ``none`` test sees only None), and ``== none`` /
``!= none`` answer instead of failing; only using the missing value itself (printing it,
comparing it with anything else) is an error naming the field.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

OBSERVED_NOTHING: list[dict[str, Any]] = []


def answer(test: str, spec: dict[str, Any], read: str = "spec.tier") -> str:
    template = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
        f'data:\n  answer: "{{{{ {read} {test} }}}}"\n'
    )
    [configmap] = rendering.render(_kinds.kind(template), _kinds.parent(spec), OBSERVED_NOTHING)
    return str(configmap["data"]["answer"])


@pytest.mark.parametrize(
    ("test", "missing", "present"),
    [
        ("is none", "true", "false"),
        ("is not none", "false", "true"),
        ("== none", "true", "false"),
        ("!= none", "false", "true"),
    ],
)
def test_a_missing_field_compares_with_none_as_none_does(test: str, missing: str, present: str) -> None:
    assert answer(test, {}) == missing
    assert answer(test, {"tier": "gold"}) == present


def test_a_kind_of_child_not_observed_yet_is_none() -> None:
    assert answer("is none", {}, read="children.Job") == "true"


def test_comparing_a_missing_field_with_a_value_still_names_the_field() -> None:
    with pytest.raises(RenderError, match=r"spec\.tier: not set in the parent"):
        answer("== 'gold'", {})
