"""tojson, b64encode, b64decode and sha256 work on the values, also when given a {% set %} block."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

CONFIG_BLOCK = """\
{% set config %}
port: {{ spec.port }}
name: {{ spec.name | tojson }}
{% endset %}
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  annotations:
    checksum/config: {{ config | sha256 }}
data:
  config.yaml: {{ config }}
  encoded: {{ config | b64encode }}
  settings: {{ spec.settings | tojson }}
  decoded: {{ spec.secret | b64decode }}
  hash-of-mapping: {{ spec.settings | hash }}
"""

SPEC = {"port": 8080, "name": "a: b\n#c", "settings": {"b": [1, 2], "a": None}, "secret": "aGVsbG8="}
CONFIG_TEXT = 'port: 8080\nname: "a: b\\n#c"\n'


def render() -> dict[str, str]:
    [configmap] = rendering.render(_kinds.kind(CONFIG_BLOCK), _kinds.parent(SPEC), [])
    assert (
        configmap["metadata"]["annotations"]["checksum/config"]
        == hashlib.sha256(CONFIG_TEXT.encode()).hexdigest()
    )
    data: dict[str, str] = configmap["data"]
    return data


def test_a_set_block_holds_the_values_not_placeholders() -> None:
    assert render()["config.yaml"] == CONFIG_TEXT


def test_encoding_filters_apply_to_the_values() -> None:
    data = render()
    assert base64.b64decode(data["encoded"]).decode() == CONFIG_TEXT
    assert data["decoded"] == "hello"
    assert json.loads(data["settings"]) == SPEC["settings"]


def test_hashes_of_mappings_are_of_canonical_json_and_stable() -> None:
    canonical = json.dumps(SPEC["settings"], sort_keys=True, separators=(",", ":"))
    assert render()["hash-of-mapping"] == hashlib.sha256(canonical.encode()).hexdigest()
    assert render() == render()


def test_b64decode_of_something_else_is_a_located_error() -> None:
    template = _kinds.configmap("  x: {{ spec.secret | b64decode }}\n")
    with pytest.raises(RenderError, match="b64decode") as caught:
        rendering.render(_kinds.kind(template), _kinds.parent({"secret": "not base64!"}), [])
    assert caught.value.line == 6
