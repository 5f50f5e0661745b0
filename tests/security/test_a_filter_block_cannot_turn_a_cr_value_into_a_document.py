"""`{% filter replace(..., spec.image) %}` puts the CR value in as one value: a document in it stays text.

The filter of a `{% filter %}` block runs on the template's text, and each argument
computed from the CR goes in as a value, as `{{ }}` puts it: the YAML parser never
reads its characters, so a line break and `---` in `spec.image` make no Secret.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.security import _offline

DEPLOYMENT = """\
{% filter replace('__IMAGE__', spec.image) %}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: __IMAGE__
{% endfilter %}
"""
IMAGE = "nginx:1.27\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: stolen\nstringData:\n  token: x\n"


def test_a_value_given_to_a_filter_block_is_one_value_not_a_second_document(tmp_path: Path) -> None:
    _, result = _offline.render(tmp_path, DEPLOYMENT, {"image": IMAGE})

    assert result.exit_code == 0, result.output
    children = [child for child in yaml.safe_load_all(result.stdout) if child is not None]
    assert [child["kind"] for child in children] == ["Deployment"]
    [container] = children[0]["spec"]["template"]["spec"]["containers"]
    assert container["image"] == IMAGE
