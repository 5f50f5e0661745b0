"""``stencil render --observed FILE`` reads an object of FILE that names no namespace in its
parent's namespace, where ``kubectl apply`` would create it; a cluster-scoped one stays
cluster-scoped.  Such objects were dropped: the templates read no reference, and the status
said their children were not created yet."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.core import door
from engine.core.model import apis, kinds
from tests.unit import _lintkinds, _observed

CR = _lintkinds.EXAMPLE.replace("name: small", "name: shop\n  namespace: shops")


def rendered(tmp_path: Path, folder: Path, observed: str, *extra: str) -> list[dict[str, object]]:
    result = _observed.render(tmp_path, folder, CR, observed, *extra)
    assert result.exit_code == 0, result.output
    return list(yaml.safe_load_all(result.stdout))


def test_a_reference_naming_no_namespace_is_read_in_the_parents(tmp_path: Path) -> None:
    config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop-config}\ndata: {ECHO: hello}\n"

    [child] = rendered(tmp_path, _observed.echo_kind(tmp_path), config)

    assert child["data"] == {"echo": "hello"}


def test_a_child_naming_no_namespace_is_the_parents_observed_child(tmp_path: Path) -> None:
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": _lintkinds.configmap("  a: b\n")})
    child = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shop}\ndata: {a: b}\n"

    [parent] = rendered(tmp_path, folder, child, "--status")

    status = parent["status"]
    assert isinstance(status, dict)
    ready = next(c for c in status["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "True", ready


def test_a_cluster_scoped_object_stays_without_a_namespace(tmp_path: Path) -> None:
    objects = [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "token"}},
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "other", "namespace": "elsewhere"}},
    ]

    kind = kinds.load_kind(_observed.echo_kind(tmp_path))
    parent = {"metadata": {"name": "shop", "namespace": "shops"}}
    placed = door.given(kind, parent, objects, is_namespaced=apis.builtin_is_namespaced).everything

    assert [obj["metadata"].get("namespace") for obj in placed] == [None, "shops", "elsewhere"]
