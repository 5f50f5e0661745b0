"""``stencil graph`` draws every edge of a kind, in DOT and in Mermaid alike: ``after:``, a
``children.<id>`` read, a readyWhen gate, a reference to the template that reads it, an
observed kind, and the parent owning each template."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.tools import cli
from tests.unit import _lintkinds, _pictures

KIND_YAML = """\
templates:
  - {file: job.yaml, readyWhen: ["child.status.succeeded >= 1"]}
  - {file: svc.yaml}
  - {file: cm.yaml, after: [job]}
references:
  - id: config
    apiVersion: v1
    kind: ConfigMap
    name: "name ~ '-config'"
  - id: unread
    apiVersion: v1
    kind: Secret
    name: "'shared'"
    optional: true
observe:
  - {apiVersion: v1, kind: Pod}
"""
JOB = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: '{{ name }}-migrate'\nspec: {}\n"
SERVICE = 'apiVersion: v1\nkind: Service\nmetadata:\n  labels: {name: x}\n  name: "{{ name }}"\nspec: {}\n'
CONFIGMAP = _lintkinds.configmap(
    '  ip: "{{ children.svc.spec.clusterIP }}"\n  echo: "{{ references.config.data.ECHO }}"\n'
)
EDGES = {
    ("Web", "job", ""),
    ("Web", "svc", ""),
    ("Web", "cm", ""),
    ("job", "cm", "after (readyWhen)"),
    ("svc", "cm", "reads"),
    ("references.config", "cm", "references"),
    ("references.unread", "Web", "references"),
    ("Pod", "Web", "observes"),
}


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    templates = {"job.yaml": JOB, "svc.yaml": SERVICE, "cm.yaml": CONFIGMAP}
    return _lintkinds.kind_folder(tmp_path, templates, kind_yaml_extra=KIND_YAML)


def test_dot_has_every_edge_and_each_templates_kind_and_name(folder: Path) -> None:
    result = CliRunner().invoke(cli.main, ["graph", str(folder)])

    assert result.exit_code == 0, result.output
    assert _pictures.dot_edges(result.stdout) == EDGES
    nodes = {lines[0]: lines[1:] for lines in _pictures.dot_nodes(result.stdout).values()}
    assert nodes["job"] == ["Job {{ name }}-migrate", "readyWhen: child.status.succeeded >= 1"]
    assert nodes["svc"] == ["Service {{ name }}"]
    assert nodes["references.config"] == ["ConfigMap name ~ '-config'", "v1"]


def test_mermaid_has_the_same_edges(folder: Path) -> None:
    result = CliRunner().invoke(cli.main, ["graph", "-o", "mermaid", str(folder)])

    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("flowchart LR\n")
    assert _pictures.mermaid_edges(result.stdout) == EDGES
    nodes = {lines[0]: lines[1:] for lines in _pictures.mermaid_nodes(result.stdout).values()}
    assert nodes["svc"] == ["Service #123;#123; name #125;#125;"]
