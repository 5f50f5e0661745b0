"""A Job template with a readyWhen, and the Job as the cache has it, running or complete, for the
readiness tests: kstatus calls a running Job Current, its readyWhen does not."""

from __future__ import annotations

import dataclasses
from typing import Any

from engine.core.model.language.expressions import compile_expression
from engine.core.model.sources import shapes
from tests.unit._ordering import template

SUCCEEDED = "child.status.succeeded >= 1"


def ready_when(text: str, *, line: int = 9, collection: bool = False) -> Any:
    names = shapes.COLLECTION_NAMES if collection else shapes.ONE_NAMES
    field = "templates[0].readyWhen"
    return compile_expression(text, file="kind.yaml", line=line, field=field, names=names)


def job_template(template_id: str = "migrate", *texts: str, after: tuple[str, ...] = ()) -> Any:
    rules = tuple(ready_when(text) for text in texts or (SUCCEEDED,))
    return dataclasses.replace(template(template_id, *after), ready_when=rules)


def job(name: str = "g-migrate") -> dict[str, Any]:
    """A Job as rendered: no status."""
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name, "namespace": "ns"}}


def observed_job(name: str = "g-migrate", *, succeeded: int) -> dict[str, Any]:
    """The Job as the cache has it: started, ``succeeded`` pods done, Complete once one is."""
    complete = [{"type": "Complete", "status": "True"}] if succeeded else []
    status = {"startTime": "2026-03-01T11:59:00Z", "active": 0 if succeeded else 1, "succeeded": succeeded}
    metadata = {**job(name)["metadata"], "uid": f"u-{name}", "generation": 1}
    return {**job(name), "metadata": metadata, "status": {**status, "conditions": complete}}
