"""A partial is part of its kind: editing it changes the kind's digest (the engine serves the kind
again) and the files its revision holds (a rollout moves parents onto the new text)."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.runtime.reconciling import revisions
from tests.unit import _kinds

TEMPLATE = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  labels:\n"
    "{% filter indent(4, first=true) %}\n{% include '_labels.yaml' %}\n{% endfilter %}\n"
)


def test_editing_a_partial_changes_the_kinds_digest_and_revision(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, template=TEMPLATE)
    (folder / "_labels.yaml").write_text("tier: gold\n")
    before = kinds.load_kind(folder)
    revision = revisions.hash_of(revisions.files_of(folder))

    (folder / "_labels.yaml").write_text("tier: silver\n")
    after = kinds.load_kind(folder)

    assert after.digest != before.digest
    assert revisions.hash_of(revisions.files_of(folder)) != revision
    assert revisions.files_of(folder)["_labels.yaml"] == "tier: silver\n"
