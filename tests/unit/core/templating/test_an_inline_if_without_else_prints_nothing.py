"""``{{ ', ' if not loop.last }}`` prints nothing on the last item, as Jinja does: the
inline if's missing else is empty text, not a value (it was ``[]``), and none inside a value."""

from __future__ import annotations

from engine.core.templating import rendering
from tests.unit import _kinds

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
data:
  hosts: "{% for host in spec.hosts %}{{ host }}{{ ', ' if not loop.last }}{% endfor %}"
  tier: x{{ spec.tier if spec.tier is defined }}y
  items: "{{ ['a', 'b' if spec.tier is defined] | tojson }}"
"""


def test_the_missing_else_of_an_inline_if_prints_nothing() -> None:
    [configmap] = rendering.render(_kinds.kind(TEMPLATE), _kinds.parent({"hosts": ["a", "b", "c"]}), [])

    assert configmap["data"] == {"hosts": "a, b, c", "tier": "xy", "items": '["a", null]'}
