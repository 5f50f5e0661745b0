"""A kind's references are read as a ServiceAccount of the parent's own namespace: the one its
``readAs:`` names, else the engine's default; a cluster-scoped parent's is of the engine's own
namespace.  Each target carries that account, so a read as one is never a read as another, and
``readAs:`` that is not an account's name is refused at its line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from engine.core.decisions import referencing
from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _kinds
from tests.unit import _references as refs


def test_the_reader_is_the_kinds_account_or_the_default_in_the_parents_namespace() -> None:
    kind, parent = refs.kind(refs.reference()), refs.parent(configName="shared")
    assert referencing.reader(kind, parent, "stencil-reader", "stencil-system") == (
        "system:serviceaccount:shop:stencil-reader"
    )
    named = dataclasses.replace(kind, read_as="shop-reader")
    assert referencing.reader(named, parent, "stencil-reader", "stencil-system") == (
        "system:serviceaccount:shop:shop-reader"
    )
    cluster_scoped = {**parent, "metadata": {"name": "echo", "uid": "u-1"}}
    assert referencing.reader(kind, cluster_scoped, "stencil-reader", "stencil-system") == (
        "system:serviceaccount:stencil-system:stencil-reader"
    )


def test_every_target_carries_its_reader() -> None:
    kind = refs.kind(refs.reference(), refs.reference("team", selector={"team": "a"}))
    found = referencing.targets(kind, refs.parent(configName="shared"), refs.builtin_scope, "someone")
    assert [target.reader for target in found] == ["someone", "someone"]


def test_read_as_loads_and_a_name_that_is_no_account_is_refused_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("x: 1\n")
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + "readAs: shop-reader\n")
    assert kinds.load_kind(tmp_path).read_as == "shop-reader"
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + "readAs: Shop_Reader\n")
    with pytest.raises(KindError) as caught:
        kinds.load_kind(tmp_path)
    assert caught.value.line == 6 and "readAs" in str(caught.value), caught.value
