"""A field ``schema:`` marks ``immutable=true`` holds on the real API server: it is set once and
then fixed. Changing it is refused, and so is removing it (or the object that holds it), since a
field removed could be set again to anything; a CR made without it may set it once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import errors, kinds
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests

pytestmark = pytest.mark.cluster

KIND_YAML = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: locks.immutable.example.com/v1
  kind: Lock
templates: [configmap.yaml]
schema:
  spec:
    size: integer | immutable=true
    owner:
      name: string | immutable=true
      note: string
"""


@pytest.fixture
def locks(kube: Kube, tmp_path: Path) -> Resource:
    folder = tmp_path / "lock"
    folder.mkdir()
    (folder / kinds.KIND_FILE).write_text(KIND_YAML)
    (folder / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ name }}'\n"
    )
    manifests.install_crds(kube, None, kinds_=[kinds.load_kind(folder)])
    return kube.resource("locks.immutable.example.com/v1", "Lock")


def test_an_immutable_field_is_set_once_and_then_neither_changed_nor_removed(
    kube: Kube, namespace: str, locks: Resource
) -> None:
    def lock(name: str, spec: dict[str, Any]) -> None:
        body = {"apiVersion": "locks.immutable.example.com/v1", "kind": "Lock", "metadata": {"name": name}}
        kube.request("POST", locks.path(namespace), {**body, "spec": spec})

    def patch(name: str, spec: dict[str, Any]) -> Any:
        return kube.request(
            "PATCH",
            locks.path(namespace, name),
            {"spec": spec},
            content_type="application/merge-patch+json",
        )

    def refused(change: Callable[[], Any]) -> str:
        with pytest.raises(errors.Invalid) as raised:
            change()
        return str(raised.value)

    lock("set", {"size": 1, "owner": {"name": "a", "note": "x"}})
    assert "is immutable" in refused(lambda: patch("set", {"size": 2}))
    # Removed, it could be set again to anything: removing is refused, the field and its holder.
    assert "size is immutable: once set it cannot be removed" in refused(lambda: patch("set", {"size": None}))
    said = refused(lambda: patch("set", {"owner": None}))
    assert "owner holds an immutable field: once set it cannot be removed" in said
    assert "name is immutable" in refused(lambda: patch("set", {"owner": {"name": None}}))
    # What is not immutable still changes.
    assert patch("set", {"owner": {"note": "y"}})["spec"]["owner"] == {"name": "a", "note": "y"}

    # A CR made without the field sets it once; then it is fixed.
    lock("unset", {})
    assert patch("unset", {"size": 3})["spec"]["size"] == 3
    assert "is immutable" in refused(lambda: patch("unset", {"size": 4}))
