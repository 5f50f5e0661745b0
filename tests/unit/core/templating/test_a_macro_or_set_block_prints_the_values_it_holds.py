"""What a macro or a ``{% set %}`` block printed reaches the child with the CR's values in it,
wherever it is printed, never the tokens that stood for them while the template ran."""

from __future__ import annotations

from engine.core.templating import rendering
from engine.core.templating.tokens import TOKEN
from tests.unit import _kinds

TEMPLATE = """\
{% macro image(spec) %}{{ spec.repo }}:{{ spec.tag }}{% endmacro %}
{% macro host() %}{{ name }}.{{ namespace }}{% endmacro %}
{% set config %}
listen: {{ spec.port }}
greeting: {{ spec.greeting | tojson }}
{% endset %}
{% set owner %}{{ spec.owner }}{% endset %}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-config
  labels:
    owner: {{ owner }}
data:
  image: {{ image(spec) }}
  quoted: "{{ image(spec) }}"
  url: http://{{ host() }}:{{ spec.port }}/
  config.yaml: {{ config }}
  owner: owned by {{ owner }}
"""

SPEC = {"repo": "nginx", "tag": "1.27", "port": 8080, "greeting": "hi: there", "owner": "team-a"}


def test_a_macro_and_a_set_block_print_the_cr_values_into_the_child() -> None:
    [configmap] = rendering.render(_kinds.kind(TEMPLATE), _kinds.parent(SPEC), [])

    assert configmap["metadata"]["labels"]["owner"] == "team-a"
    assert configmap["data"] == {
        "image": "nginx:1.27",
        "quoted": "nginx:1.27",
        "url": "http://w.ns:8080/",
        "config.yaml": 'listen: 8080\ngreeting: "hi: there"\n',
        "owner": "owned by team-a",
    }
    assert not TOKEN.search(str(configmap))
