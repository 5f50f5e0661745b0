"""A Widget kind that reads a ConfigMap it does not own (``references:``) into a child of its own."""

from __future__ import annotations

from typing import Any

KIND_YAML = """\
references:
  - id: config
    apiVersion: v1
    kind: ConfigMap
    name: spec.configName
    namespace: spec.configNamespace | default(namespace)
status:
  fields:
    echo: references.config.data.ECHO
"""

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-echo
data:
  ECHO_VALUE: "{{ references.config.data.ECHO }}"
"""


def shared_config(name: str, value: str) -> dict[str, Any]:
    """The ConfigMap someone else makes, which the Widget references."""
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": {"ECHO": value}}
