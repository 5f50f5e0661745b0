"""A macro's, a `{% set %}` block's and `caller()`'s text is the text with the values in it.

A kind author computes with it: `qbytes('500Mi') | float` is the number the macro
printed, not 0.0 read from a placeholder.
"""

from __future__ import annotations

from engine.core.templating import rendering
from tests.unit import _kinds

TEMPLATE = """\
{% macro qbytes(quantity) %}{{ quantity[:-2] | int * 1024 * 1024 }}{% endmacro %}
{% macro twice() %}{{ caller() | int * 2 }}{% endmacro %}
{% set replicas %}{{ spec.replicas }}{% endset %}
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  bytes: "{{ qbytes(spec.memory) | float }}"
  more: "{{ replicas | int + 1 }}"
  doubled: "{% call twice() %}{{ spec.replicas }}{% endcall %}"
"""


def test_a_macro_a_set_block_and_caller_give_the_values_they_printed() -> None:
    [configmap] = rendering.render(
        _kinds.kind(TEMPLATE), _kinds.parent({"memory": "500Mi", "replicas": 3}), []
    )

    assert configmap["data"] == {"bytes": "524288000.0", "more": "4", "doubled": "6"}
