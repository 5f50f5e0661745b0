"""One shape per id: ``children.<id>`` of a collection is a list of 0, 1 or N children, always (one
worker is a list of one, not the worker); of any other template, the one child or nothing."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.core.decisions import context
from engine.core.decisions.plans import ordering
from engine.core.model.language.expressions import compile_expression
from tests.unit._ordering import NOW, deployment, observed, template

WORKERS = dataclasses.replace(template("workers"), collection=True)
DB = template("db")
PARENT = {"apiVersion": "example.com/v1", "kind": "App", "metadata": {"name": "g", "namespace": "ns"}}


def evaluate(text: str, workers: int) -> Any:
    pods = [deployment(f"g-worker-{index}") for index in range(workers)]
    rendered = [(WORKERS, pod) for pod in pods] + [(DB, deployment("g-db"))]
    cache = [observed(child, available=True, uid=f"u-{i}") for i, (_, child) in enumerate(rendered)]
    names = context.status_context(
        PARENT, cache, now=NOW, origins=ordering.origins(rendered), templates=(WORKERS, DB)
    )
    return compile_expression(text, file="kind.yaml", line=1, field="status.fields.x").evaluate(names)


def test_a_collection_of_one_is_a_list_of_one() -> None:
    assert evaluate("children.workers | length", 1) == 1
    assert evaluate("children.workers[0].metadata.name", 1) == "g-worker-0"


def test_a_collection_of_none_or_many_is_a_list_too() -> None:
    assert evaluate("children.workers", 0) == []
    assert evaluate("children.workers | length", 5) == 5


def test_a_template_of_one_child_is_that_child() -> None:
    assert evaluate("children.db.metadata.name", 1) == "g-db"
