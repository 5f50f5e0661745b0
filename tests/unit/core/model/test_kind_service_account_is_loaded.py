from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit._kinds import kind_folder


def test_service_account_is_read_as_namespace_and_name(tmp_path: Path) -> None:
    kind = kinds.load_kind(kind_folder(tmp_path, "serviceAccount:\n  namespace: tenant-a\n  name: writer\n"))

    assert kind.service_account == ("tenant-a", "writer")


def test_kind_without_service_account_applies_as_the_engine(tmp_path: Path) -> None:
    assert kinds.load_kind(kind_folder(tmp_path, "")).service_account is None


def test_service_account_without_namespace_names_the_line_and_field(tmp_path: Path) -> None:
    with pytest.raises(KindError) as caught:
        kinds.load_kind(kind_folder(tmp_path, "serviceAccount:\n  name: writer\n"))

    assert caught.value.line == 6
    assert caught.value.field is not None and "serviceAccount" in caught.value.field
    assert "namespace" in str(caught.value)
