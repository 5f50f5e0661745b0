"""A template that reads ``children.<id>`` waits for that template as ``after:`` would make it:
the edge is inferred from the template's text, and the gate holds back its missing children
until the read template's children exist and are healthy."""

from __future__ import annotations

from pathlib import Path

from engine.core.decisions.plans import ordering
from engine.core.model import kinds
from tests.unit import _kinds
from tests.unit._ordering import NOW, service

CONFIGMAP = _kinds.configmap("  ip: \"{{ children.svc.spec.clusterIP if children.svc else '' }}\"\n")
SERVICE = "apiVersion: v1\nkind: Service\nmetadata:\n  name: '{{ name }}-svc'\nspec: {}\n"


def folder(root: Path) -> Path:
    directory = _kinds.kind_folder(root, template=CONFIGMAP)
    (directory / "svc.yaml").write_text(SERVICE)
    return directory


def test_the_edge_is_inferred_from_the_read_at_its_line(tmp_path: Path) -> None:
    kind = kinds.load_kind(folder(tmp_path))
    configmap = next(t for t in kind.templates if t.id == "cm")

    assert configmap.waits_for == ("svc",)
    assert [(read.id, read.line) for read in configmap.reads] == [("svc", 6)]


def test_the_gate_holds_back_the_reader_until_the_read_child_exists() -> None:
    kind = _kinds.kind(CONFIGMAP, SERVICE, names=("cm.yaml", "svc.yaml"))
    reader, read = kind.templates
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm", "namespace": "ns"}}
    svc = service("w-svc")
    rendered = [(reader, cm), (read, svc)]

    waiting = ordering.gate(rendered, [], NOW)
    assert waiting.ready == (svc,)
    assert [str(w) for w in waiting.waiting] == ["cm waits for svc (not created yet)"]

    assert ordering.gate(rendered, [svc], NOW).ready == (cm, svc)
