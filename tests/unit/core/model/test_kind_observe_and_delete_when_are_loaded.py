from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit._kinds import kind_folder


def test_observed_kinds_and_delete_rule_are_loaded(tmp_path: Path) -> None:
    kind = kinds.load_kind(
        kind_folder(tmp_path, "observe:\n  - {apiVersion: v1, kind: Pod}\ndeleteWhen: status.done\n")
    )

    assert kind.observe == (("v1", "Pod"),)
    assert kind.delete_when is not None and kind.delete_when.text == "status.done"
    assert kind.delete_when.line == 8


def test_a_delete_rule_that_does_not_compile_names_its_line(tmp_path: Path) -> None:
    with pytest.raises(KindError) as caught:
        kinds.load_kind(kind_folder(tmp_path, "deleteWhen: status.done ==\n"))

    assert (caught.value.line, caught.value.field) == (6, "deleteWhen")
