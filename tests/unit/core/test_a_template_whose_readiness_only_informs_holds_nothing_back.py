"""A template with ``gatesReady: false`` only informs: its children's readiness is said in a
condition of its own (``CacheReady``), ``Ready`` does not wait for them, and a template reading
``children.cache`` renders at once with what is there, while one naming it in ``after:`` still
waits.  Its condition's type may be neither the engine's nor a custom condition's."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from engine.core import door
from engine.core.decisions import conditions
from engine.core.decisions.plans import ordering
from engine.core.decisions.status import derive_status
from engine.core.model import kinds
from engine.core.model.errors import KindError
from engine.core.model.language.expressions import compile_expression
from tests.unit import _kinds

CACHE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cache\ndata: {warm: 'no'}\n"
READER = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: reader\n"
READER += "data:\n  seen: '{{ children.cache is not none }}'\n"
NOW = "2026-12-04T10:00:00Z"


def _kind(gates: bool) -> kinds.Kind:
    never = compile_expression(
        "child.data.warm == 'yes'", file="kind.yaml", line=7, field="readyWhen", names={"child"}
    )
    cache, reader = _kinds.kind(CACHE, READER, names=("cache.yaml", "reader.yaml")).templates
    cache = dataclasses.replace(cache, ready_when=(never,), gates_ready=gates)
    return dataclasses.replace(_kinds.kind(), templates=(cache, reader))


def _observed(rendered: door.Rendered) -> list[dict[str, Any]]:
    return [{**child, "metadata": {**child["metadata"], "uid": "u"}} for child in rendered.children]


@pytest.mark.parametrize(("gates", "ready"), [(False, "True"), (True, "False")])
def test_ready_waits_for_a_gating_template_only(gates: bool, ready: str) -> None:
    kind, parent = _kind(gates), _kinds.parent()
    rendered = door.render(kind, parent, [])
    found = derive_status(kind, parent, _observed(rendered), rendered.outcome(), NOW)["conditions"]
    assert conditions.find_in(found, "Ready")["status"] == ready
    informs = conditions.find_in(found, "CacheReady")
    assert (informs is not None) is not gates
    if informs is not None:
        assert informs["status"] == "False" and "readyWhen" in informs["message"], informs


@pytest.mark.parametrize(("gates", "waits"), [(False, False), (True, True)])
def test_a_reader_waits_for_a_gating_template_only(gates: bool, waits: bool) -> None:
    kind, parent = _kind(gates), _kinds.parent()
    rendered = door.render(kind, parent, [])
    cache_only = [o for o in _observed(rendered) if o["metadata"]["name"] == "cache"]
    gate = ordering.gate(rendered.pairs, cache_only, NOW)
    assert [w.template for w in gate.waiting] == (["reader"] if waits else [])


def test_an_after_still_waits_for_an_informing_template() -> None:
    kind, parent = _kind(False), _kinds.parent()
    reader = dataclasses.replace(kind.templates[1], after=("cache",))
    kind = dataclasses.replace(kind, templates=(kind.templates[0], reader))
    rendered = door.render(kind, parent, [])
    cache_only = [o for o in _observed(rendered) if o["metadata"]["name"] == "cache"]
    assert [w.template for w in ordering.gate(rendered.pairs, cache_only, NOW).waiting] == ["reader"]


def test_a_condition_type_already_taken_is_refused_at_the_template(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, "templates: [{file: cm.yaml, id: children, gatesReady: false}]\n")
    with pytest.raises(KindError) as caught:
        kinds.load_kind(folder)
    assert "ChildrenReady" in str(caught.value) and caught.value.line == 6, caught.value
