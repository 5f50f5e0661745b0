"""A child kind that only an expression names is found by rendering the kind's examples."""

from pathlib import Path

from engine.core.model import kinds
from engine.core.offline import rbac

KIND_YAML = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: example.com/v1
  kind: Holder
templates: [child.yaml]
"""

TEMPLATE = """\
apiVersion: v1
kind: {{ spec.childKind }}
metadata:
  name: "{{ name }}-child"
"""

EXAMPLE = """\
apiVersion: example.com/v1
kind: Holder
metadata:
  name: sample
spec:
  childKind: Secret
"""


def test_child_kind_named_by_an_expression_is_found_by_rendering(tmp_path: Path) -> None:
    folder = tmp_path / "holder"
    (folder / "examples").mkdir(parents=True)
    (folder / "kind.yaml").write_text(KIND_YAML)
    (folder / "child.yaml").write_text(TEMPLATE)
    (folder / "examples" / "sample.yaml").write_text(EXAMPLE)
    holder = kinds.load_kind(folder)

    assert rbac.literal_child_kinds(TEMPLATE) == set()
    assert rbac.child_kinds(holder) == {("v1", "Secret")}
