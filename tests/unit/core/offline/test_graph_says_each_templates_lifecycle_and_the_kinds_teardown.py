"""``stencil lint --graph`` says, in each template's box, the lifecycle it gives its children and
its teardown stage, and in the parent's box the kind's period and ordered teardown; a kind that
says none of them draws the boxes as before."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.core.offline import graphs
from tests.unit import _kinds


def _boxes(tmp_path: Path, kind_yaml: str) -> dict[str, tuple[str, ...]]:
    folder = _kinds.kind_folder(tmp_path, kind_yaml)
    (folder / "db.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: db}\n")
    return {node.key: node.lines for node in graphs.picture(kinds.load_kind(folder)).nodes}


def test_each_box_says_its_lifecycle_and_stage(tmp_path: Path) -> None:
    kind_yaml = (
        "reconcileEvery: 5m\nteardown: {ordered: true, timeout: 2m}\ntemplates:\n"
        "  - {file: db.yaml, deletionPolicy: Orphan, adopt: true}\n"
        "  - {file: cm.yaml, after: [db], createOnly: true}\n"
    )
    boxes = _boxes(tmp_path, kind_yaml)
    assert boxes["template:db"][-2:] == ("Orphan, adopt", "teardown stage 0")
    assert boxes["template:cm"][-2:] == ("createOnly", "teardown stage 1")
    assert boxes[graphs.PARENT][-2:] == ("reconciled every 300 s", "ordered teardown, at most 120 s")


def test_a_kind_saying_none_draws_its_boxes_as_before(tmp_path: Path) -> None:
    boxes = _boxes(tmp_path, "templates: [db.yaml, cm.yaml]\n")
    assert boxes["template:db"] == ("db", "ConfigMap")  # a flow-style name is not spelled out
    assert boxes[graphs.PARENT] == (_kinds.KIND, _kinds.API_VERSION)
