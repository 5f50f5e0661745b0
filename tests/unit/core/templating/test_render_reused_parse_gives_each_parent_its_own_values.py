"""A rendered text is parsed once and reused for every parent that renders the same text (values aside):
each child still gets its own parent's values, and no two children share a container."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from engine.core.templating import rendering
from tests.unit import _kinds


def template() -> str:
    # A comment no other test writes, so the first render of this text parses it.
    return _kinds.configmap(
        f"  # {uuid.uuid4()}\n"
        "  whole: {{ spec.whole }}\n"
        "  among: 'x-{{ spec.text }}-y'\n"
        "  nested:\n    - {{ spec.text }}\n    - {fixed: [1, 2], from-cr: {{ spec.whole }}}\n"
    )


def render(kind: Any, spec: dict[str, Any]) -> dict[str, Any]:
    [child] = rendering.render(kind, _kinds.parent(spec), [])
    return child


def test_each_parent_gets_its_own_values_from_a_reused_parse() -> None:
    kind = _kinds.kind(template())
    first = {"whole": {"a": [1, 2]}, "text": "one"}
    second = {"whole": 7, "text": "two: with\nstructure"}
    for spec in (first, second, first):
        data = render(kind, spec)["data"]
        assert data["whole"] == spec["whole"]
        assert data["among"] == f"x-{spec['text']}-y"
        assert data["nested"][0] == spec["text"]
        assert data["nested"][1]["from-cr"] == spec["whole"]


def test_a_reused_parse_gives_the_same_child_as_the_first() -> None:
    kind = _kinds.kind(template())
    spec = {"whole": {"a": [1, 2]}, "text": "one"}
    assert render(kind, spec) == render(kind, spec)


def test_changing_a_child_changes_no_later_render() -> None:
    kind = _kinds.kind(template())
    spec = {"whole": {"a": [1, 2]}, "text": "one"}
    child = render(kind, spec)
    kept = copy.deepcopy(child)
    child["data"]["nested"][1]["fixed"].append(3)
    child["data"]["nested"][1]["from-cr"]["a"].append(3)
    child["data"]["nested"].clear()
    child["metadata"]["name"] = "changed"
    assert render(kind, spec) == kept
