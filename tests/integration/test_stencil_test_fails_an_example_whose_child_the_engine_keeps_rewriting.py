"""A kind that writes into its child a value read from that child (here its resourceVersion,
through a reference) is Ready at once, while the engine rewrites the child on every reconcile:
``stencil test`` fails its example at the end of the settling window, naming the child and the
field the engine kept changing, instead of passing it on its first Ready (its golden file, which
marks that field ``${ANY}``, would match any one of those rewrites)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.tools import cli
from tests.integration import _widgets

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

# Each apply moves the ConfigMap's resourceVersion, the reference wakes the parent with it, and
# the next render differs again: a write loop that never leaves Ready.
SEEN_CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: "{{ name }}-data"
data:
  seen: "{{ references.mine.metadata.resourceVersion if references.mine else 'none' }}"
"""

REFERENCES = """\
references:
  - id: mine
    apiVersion: v1
    kind: ConfigMap
    name: "name ~ '-data'"
    optional: true
"""

GOLDEN = """\
---
apiVersion: v1
data:
  seen: ${ANY}
kind: ConfigMap
metadata:
  annotations:
    stencil.dev/applied-hash: ${APPLIED_HASH}
  labels:
    app.kubernetes.io/managed-by: stencil
    stencil.dev/kind: widget
    stencil.dev/parent-name: web
    stencil.dev/parent-namespace: ${NAMESPACE}
    stencil.dev/parent-uid: ${PARENT_UID}
  name: web-data
  namespace: ${NAMESPACE}
  ownerReferences:
  - apiVersion: tests.stencil.dev/v1
    blockOwnerDeletion: true
    controller: true
    kind: Widget
    name: web
    uid: ${PARENT_UID}
"""


def test_stencil_test_fails_an_example_whose_child_the_engine_keeps_rewriting(tmp_path: Path) -> None:
    kind_dir = _widgets.widget_project(
        tmp_path, {"configmap.yaml": SEEN_CONFIGMAP}, {"web": _widgets.widget("web")}
    )
    with (kind_dir / "kind.yaml").open("a") as kind_yaml:
        kind_yaml.write(REFERENCES)
    (kind_dir / "tests").mkdir()
    (kind_dir / "tests" / "web.children.yaml").write_text(GOLDEN)

    result = CliRunner().invoke(cli.main, ["test", str(kind_dir), "--settle", "2", "--timeout", "60"])

    assert result.exit_code == 1, result.output
    assert re.search(
        r"^FAIL widget/web  ready in \d+\.\ds, stopped after \d+\.\ds$", result.output, re.MULTILINE
    ), result.output
    written = "ConfigMap web-data: the engine wrote it in the settling window: data.seen: "
    assert written in result.output, result.output
