"""Reading a template for child kinds counts only a document's own top-level apiVersion and kind,
literal ones: not nested `kind:` keys, not values an expression computes."""

from engine.core.offline import rbac

TEMPLATE = """\
apiVersion: batch/v1
kind: Job
metadata:
  ownerReferences:
    - apiVersion: example.com/v1
      kind: Web
spec:
  template:
    kind: NotAKind
---
# a comment
apiVersion: "v1"
kind: 'Secret'   # quoted, with a comment
---
apiVersion: v1
kind: {{ spec.childKind }}
---
kind: ConfigMap
"""


def test_only_top_level_literal_pairs_count() -> None:
    assert rbac.literal_child_kinds(TEMPLATE) == {("batch/v1", "Job"), ("v1", "Secret")}
