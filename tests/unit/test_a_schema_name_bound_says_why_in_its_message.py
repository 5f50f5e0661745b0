"""``maxNameLength`` writes a CEL rule on metadata.name whose message says why names are bounded:
a number gives the general reason, ``{length, because}`` the kind's own."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.unit import _schema_kinds


def _rules(generated: dict[str, Any]) -> list[dict[str, str]]:
    rules: list[dict[str, str]] = generated["spec"]["versions"][0]["schema"]["openAPIV3Schema"][
        "x-kubernetes-validations"
    ]
    return rules


def test_a_bound_alone_gives_the_general_reason(tmp_path: Path) -> None:
    generated = _schema_kinds.crd(tmp_path, "schema:\n  maxNameLength: 55\n  spec: {}\n")
    assert _rules(generated) == [
        {
            "rule": "self.metadata.name.size() <= 55",
            "message": "a Shop name is at most 55 characters: its children are named after it",
        }
    ]


def test_a_bound_with_a_reason_says_it(tmp_path: Path) -> None:
    text = "schema:\n  maxNameLength: {length: 57, because: its Job is <name>-job}\n  spec: {}\n"
    generated = _schema_kinds.crd(tmp_path, text)
    assert _rules(generated) == [
        {
            "rule": "self.metadata.name.size() <= 57",
            "message": "a Shop name is at most 57 characters: its Job is <name>-job",
        }
    ]
