"""An interpolation that is a whole YAML value is the CR's value itself, not its text."""

from __future__ import annotations

from engine.core.templating import rendering
from tests.unit import _kinds

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  replicas: {{ spec.replicas }}
  paused: {{ spec.paused }}
  template:
    spec:
      containers:
        - name: c
          resources: {{ spec.resources }}
          args: {{ spec.args }}
          env:
            - name: REPLICAS
              value: "{{ spec.replicas }}"
"""


def test_numbers_booleans_mappings_and_lists_keep_their_type() -> None:
    resources = {"limits": {"cpu": "500m", "memory": "1Gi"}, "requests": {"cpu": 1}}
    spec = {"replicas": 3, "paused": False, "resources": resources, "args": ["--port", 8080]}
    [deployment] = rendering.render(_kinds.kind(DEPLOYMENT), _kinds.parent(spec), [])
    assert deployment["spec"]["replicas"] == 3 and type(deployment["spec"]["replicas"]) is int
    assert deployment["spec"]["paused"] is False
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    assert container["resources"] == resources
    assert container["args"] == ["--port", 8080]


def test_a_quoted_interpolation_is_a_string() -> None:
    [deployment] = rendering.render(
        _kinds.kind(DEPLOYMENT),
        _kinds.parent({"replicas": 3, "paused": True, "resources": {}, "args": []}),
        [],
    )
    assert deployment["spec"]["template"]["spec"]["containers"][0]["env"] == [
        {"name": "REPLICAS", "value": "3"}
    ]


def test_a_rendered_value_shares_nothing_with_the_parent() -> None:
    spec = {"replicas": 1, "paused": False, "resources": {"limits": {"cpu": "1"}}, "args": ["a"]}
    parent = _kinds.parent(spec)
    [deployment] = rendering.render(_kinds.kind(DEPLOYMENT), parent, [])
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["limits"]["cpu"] = "2"
    container["args"].append("b")
    assert parent["spec"]["resources"] == {"limits": {"cpu": "1"}}
    assert parent["spec"]["args"] == ["a"]
