"""``stencil lint`` warns, at its line, of a field that one of the cluster's controllers sets
itself (a Deployment's ``deployment.kubernetes.io/revision``): rendering it would start a fight
the engine can only slow down."""

from pathlib import Path

from tests.unit._lintkinds import line_of, lint_template

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ name }}-dns
  annotations:
    "deployment.kubernetes.io/revision": "1"
    example.com/owner: team-a
spec:
  selector: {matchLabels: {app: dns}}
  template:
    metadata: {labels: {app: dns}}
    spec:
      containers: [{name: dns, image: coredns:1.12}]
"""


def test_a_rendered_revision_annotation_is_a_warning_at_its_line(tmp_path: Path) -> None:
    file, findings = lint_template(tmp_path, DEPLOYMENT, "controller-field")
    (finding,) = findings
    assert (finding.file, finding.line, finding.severity) == (
        file,
        line_of(DEPLOYMENT, "revision"),
        "warning",
    )
    assert finding.message.startswith("deployment.kubernetes.io/revision: the Deployment controller sets it")


def test_annotations_of_ones_own_are_not_warned_of(tmp_path: Path) -> None:
    own = DEPLOYMENT.replace('    "deployment.kubernetes.io/revision": "1"\n', "")
    _, findings = lint_template(tmp_path, own, "controller-field")
    assert findings == []
