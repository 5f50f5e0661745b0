"""An ordered teardown (kind.yaml's ``teardown``) stages each template by the order children are
made in (``after:`` and ``children.<id>`` reads): the last made goes first, a stage at a time, each
waited for until gone; orphans are let go at once; past the timeout whatever is left goes at once;
nothing left, the parent may go.  A duration kind.yaml cannot mean is refused at its line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.decisions.plans import lifecycles
from engine.core.model import kinds
from engine.core.model.errors import KindError
from engine.core.model.sources import lifecycle
from tests.unit import _kinds

SINCE = "2026-12-04T10:00:00Z"


def _child(name: str, stage: int, *, going: bool = False, orphan: bool = False) -> dict[str, Any]:
    annotations = {lifecycle.TEARDOWN_ANNOTATION: str(stage)}
    if orphan:
        annotations[lifecycle.POLICY_ANNOTATION] = lifecycle.ORPHAN
    meta: dict[str, Any] = {"name": name, "namespace": "ns", "uid": name, "annotations": annotations}
    if going:
        meta["deletionTimestamp"] = SINCE
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta}


def _names(objs: Any) -> list[str]:
    return [obj["metadata"]["name"] for obj in objs]


def test_the_last_made_stage_goes_first_and_is_waited_for() -> None:
    children = [_child("db", 0), _child("app", 1), _child("web", 2), _child("claim", 1, orphan=True)]
    step = lifecycles.teardown_step(children, SINCE, "2026-12-04T10:00:05Z", 600.0)
    assert (_names(step.deletes), _names(step.releases), step.done) == (["web"], ["claim"], False)
    going = lifecycles.teardown_step([_child("db", 0), _child("web", 2, going=True)], SINCE, SINCE, 600.0)
    assert (_names(going.deletes), _names(going.waiting), going.done) == ([], ["web"], False)
    last = lifecycles.teardown_step([_child("db", 0)], SINCE, SINCE, 600.0)
    assert _names(last.deletes) == ["db"]
    assert lifecycles.teardown_step([], SINCE, SINCE, 600.0).done


def test_past_its_timeout_whatever_is_left_goes_at_once() -> None:
    children = [_child("db", 0), _child("web", 2, going=True)]
    step = lifecycles.teardown_step(children, SINCE, "2026-12-04T10:10:01Z", 600.0)
    assert (_names(step.deletes), step.done, step.timed_out) == (["db"], True, True)


def test_stages_follow_after_and_reads(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, "teardown: {ordered: true, timeout: 2m}\n")
    (folder / "cm.yaml").unlink()
    (folder / "db.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: db}\n")
    (folder / "app.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: app}\n")
    reads = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {x: '{{ children.app }}'}\n"
    (folder / "web.yaml").write_text(reads)
    kind_yaml = folder / "kind.yaml"
    kind_yaml.write_text(
        kind_yaml.read_text() + "templates: [db.yaml, {file: app.yaml, after: [db]}, web.yaml]\n"
    )
    teardown = kinds.load_kind(folder).teardown
    assert teardown is not None and teardown.timeout == 120.0
    assert dict(teardown.stages) == {"db": 0, "app": 1, "web": 2}


def test_a_timeout_kind_yaml_cannot_mean_is_refused_at_its_line(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, "teardown: {ordered: true, timeout: soon}\n")
    with pytest.raises(KindError) as caught:
        kinds.load_kind(folder)
    assert caught.value.line == 6 and "teardown" in str(caught.value), caught.value
