"""A tenant's text parsed with `fromyaml` lands where the `{{ }}` is: its newlines, `---` and
`kind:` are data, never another field or another document of the manifest."""

from __future__ import annotations

from engine.core.templating import rendering
from tests.unit import _kinds

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  annotations: {{ spec.labels | fromyaml }}
data:
  note: {{ (spec.labels | fromyaml).team }}
"""

# Text that would end the ConfigMap and start a Secret if its characters reached the YAML parser.
HOSTILE = "team: |\n  x\n  ---\n  apiVersion: v1\n  kind: Secret\n  metadata: {name: stolen}\n"


def test_the_parsed_value_is_one_value_of_one_manifest() -> None:
    children = rendering.render(_kinds.kind(TEMPLATE), _kinds.parent({"labels": HOSTILE}), [])

    [configmap] = children
    assert configmap["kind"] == "ConfigMap"
    team = "x\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: stolen}\n"
    assert configmap["metadata"]["annotations"] == {"team": team}
    assert configmap["data"] == {"note": team}


def test_a_filter_block_parses_its_text_with_the_values_in_it_as_one_value() -> None:
    template = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n"
        "data:\n  parsed: {% filter fromyaml | tojson %}a: {{ spec.a }}{% endfilter %}\n"
    )
    [configmap] = rendering.render(_kinds.kind(template), _kinds.parent({"a": "1\nkind: Secret"}), [])
    assert configmap["kind"] == "ConfigMap"
    assert configmap["data"] == {"parsed": '{"a": 1, "kind": "Secret"}'}
