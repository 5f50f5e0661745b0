"""A kind ConfigMap whose kind name is no DNS label (300 characters, a NUL), whose key is no plain
file name, or whose files do not fit the space left for kinds is refused with its reason; a good
one next to it is written and served.  Before, a 300-character name stopped every kind from
loading ("File name too long", every second)."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import bundles as model_bundles
from engine.runtime.serving import bundles, manager
from tests.integration._widgets import KIND_YAML, VALUE_CONFIGMAP
from tests.seam._fake import FakeKube

NAMESPACE = "stencil-system"


def bundle(name: str, kind_name: str, files: dict[str, str]) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": NAMESPACE,
            "labels": {bundles.BUNDLE_LABEL: "true"},
            "annotations": {bundles.BUNDLE_NAME_ANNOTATION: kind_name},
        },
        "data": files,
    }


def test_the_reasons() -> None:
    assert "not a DNS label" in str(model_bundles.problem("w" * 300, {}, 100))
    assert "not a DNS label" in str(model_bundles.problem("bad\x00name", {}, 100))
    assert "not a plain file name" in str(model_bundles.problem("widget", {"../kind.yaml": ""}, 100))
    assert "do not fit" in str(model_bundles.problem("widget", {"kind.yaml": "x" * 101}, 100))
    assert model_bundles.problem("widget", {"kind.yaml": "x" * 100}, 100) is None


def test_a_hostile_bundle_leaves_the_others_loading(tmp_path: Path) -> None:
    fake = FakeKube()
    fake.add(bundle("hostile", "w" * 300, {"kind.yaml": KIND_YAML}))
    fake.add(bundle("nul", "a\x00b", {"kind.yaml": KIND_YAML}))
    fake.add(bundle("widget", "widget", {"kind.yaml": KIND_YAML, "data.yaml": VALUE_CONFIGMAP}))
    options = manager.Options(run_workers=False, bundle_namespace=NAMESPACE)
    engine = manager.Engine(fake, tmp_path / "no-templates", options)
    try:
        assert engine.bundles is not None
        engine.bundles.watch()
        engine.load()
        assert [gvk[1] for gvk in engine.controllers] == ["Widget"]
        assert set(engine.bundles.refused) == {"hostile", "nul"}
    finally:
        engine.stop(grace=0)
