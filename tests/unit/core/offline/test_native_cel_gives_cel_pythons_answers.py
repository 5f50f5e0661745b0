"""CRD rules tried first by the C++ CEL runtime give the answers cel-python alone gives
(violations, messages and notes alike), over every shipped CRD's rules on many near variants
of its examples, and over the Kubernetes CEL library's own cases."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.offline import cel_native, validation_rules
from tests.unit import _shipped
from tests.unit.core.offline.test_cel_library_has_the_kubernetes_functions import RULES as LIBRARY_RULES

# Rules over ``self`` as CRDs write them, some true and some not, with the values they judge.
SELF_RULES = [
    "self.matches('^[a-c]+$')",
    "self.size() <= 3 && self.startsWith('a')",
    "self.all(x, x.size() > 0)",
    "has(self.a) && self.a == 1",
    "self.exists_one(k, k == 'a')",
    "self >= 0 && self % 2 == 0",
    "self.a__dash__b == 'x'",
    "!has(self.a__dash__b)",
    "self == 2",
    "self.spec.replicas >= 0",
    " && ".join(["self.size() >= 0"] * 3000),  # deeper than cel-python can run: its note stands
]
SELF_VALUES: list[Any] = [
    2.0,
    2,
    "abc",
    "abd",
    "",
    "abc\n",
    4,
    -2,
    3,
    ["a", ""],
    ["a"],
    {"a": 1},
    {"a-b": "x"},
    {"b": 2},
]


def outcomes(schema: Any, value: Any, *, native: bool) -> Any:
    return validation_rules.Rules(schema, native=native).check(value)


@pytest.mark.parametrize("kind", sorted(_shipped.schemas()))
def test_the_shipped_rules_give_cel_pythons_answers(kind: str) -> None:
    schema = _shipped.schemas()[kind]
    for example in _shipped.examples(kind):
        for value in _shipped.variants(example):
            assert outcomes(schema, value, native=True) == outcomes(schema, value, native=False), value


def test_the_shipped_rules_without_a_library_function_run_natively() -> None:
    rules = {entry["rule"] for schema in _shipped.schemas().values() for entry in _entries(schema)}
    left = {rule for rule in rules if cel_native.program(rule) is None}
    assert left == {"!isCIDR(self.cidr) || !isIP(self.gateway) || cidr(self.cidr).containsIP(self.gateway)"}


@pytest.mark.parametrize("rule", [*LIBRARY_RULES, *SELF_RULES])
def test_the_library_and_self_rules_give_cel_pythons_answers(rule: str) -> None:
    schema = {"x-kubernetes-validations": [{"rule": rule}], "properties": {"a-b": {"type": "string"}}}
    for value in SELF_VALUES:
        assert outcomes(schema, value, native=True) == outcomes(schema, value, native=False), value


def _entries(schema: Any) -> list[dict[str, Any]]:
    if not isinstance(schema, dict):
        return []
    inner = [
        *(schema.get("properties") or {}).values(),
        schema.get("items"),
        schema.get("additionalProperties"),
    ]
    return [*(schema.get("x-kubernetes-validations") or []), *(e for sub in inner for e in _entries(sub))]
