"""Kinds built in memory, and parents for them, for the rendering tests."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from engine.core.model.kinds import Kind, Placement, Template

API_VERSION = "example.com/v1"
KIND = "Web"
FOLDER = Path("templates/web")
# The smallest valid kind.yaml, serving API_VERSION/KIND.
KIND_YAML = (
    "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\n"
    f"parent:\n  apiVersion: {API_VERSION}\n  kind: {KIND}\n"
)


def kind(
    *templates: str, placement: Placement | None = None, names: tuple[str, ...] = (), collection: bool = False
) -> Kind:
    """A kind whose templates are ``templates`` (named ``t0.yaml``, ``t1.yaml``... unless ``names`` says),
    each a collection if ``collection`` says so."""
    files = names or tuple(f"t{index}.yaml" for index in range(len(templates)))
    return Kind(
        name="web",
        directory=FOLDER,
        api_version=API_VERSION,
        kind=KIND,
        templates=tuple(
            Template(FOLDER / file, text, collection=collection)
            for file, text in zip(files, templates, strict=True)
        ),
        placement=placement or Placement(),
    )


def status_kind(name: str, api_version: str, kind: str, **rules: Any) -> Kind:
    """A kind without templates, in ``templates/<name>``: all the status tests derive from."""
    directory = Path("templates") / name
    return Kind(name=name, directory=directory, api_version=api_version, kind=kind, templates=(), **rules)


# The seed kind DeployWebService: its folder, and a CR of it (``shop``) that sets only
# spec.image; and, built in memory, the kind and its parent ``web`` in ``shop``.
SEED_API_VERSION = "operator.wujiuye.com/v1beta1"
SEED_FOLDER = Path(__file__).resolve().parents[2] / "templates" / "deploywebservice"
SEED_CR = f"apiVersion: {SEED_API_VERSION}\nkind: DeployWebService\nmetadata:\n  name: shop\n"
SEED_CR += "spec:\n  image: shop:2\n"
SEED_SPEC = {"image": "nginx:1.27", "replicas": 2, "exposed_port": 8080}
# The seeds' APIs as the CRDs Stencil shipped by hand before their kind.yaml said them in schema:,
# for the tests of a kind whose CRD is a file to find.
SHIPPED_CRDS = SEED_FOLDER.parents[1] / "tests" / "shipped_crds"
SEED_CRD = SHIPPED_CRDS / "deploywebservice.yaml"


def with_crd_file(folder: Path, into: Path) -> Path:
    """The kind folder ``folder`` copied to ``into`` with its kind.yaml's ``schema:`` taken out: a
    kind whose parent's CRD is a file to find (for a seed, the one in ``SHIPPED_CRDS``)."""
    shutil.copytree(folder, into)
    kind_yaml = into / "kind.yaml"
    kind_yaml.write_text(re.sub(r"^schema:\n(?:[ #].*\n|\n)*", "", kind_yaml.read_text(), flags=re.M))
    return into


def seed_with_crd_file(into: Path) -> Path:
    """``with_crd_file`` of the seed kind DeployWebService, whose CRD is ``SEED_CRD``."""
    return with_crd_file(SEED_FOLDER, into)


def deploywebservice(**rules: Any) -> Kind:
    return status_kind("deploywebservice", SEED_API_VERSION, "DeployWebService", **rules)


def shop_web(generation: int, **more: Any) -> dict[str, Any]:
    """The seed kind's parent ``web`` in ``shop`` at ``generation``; ``more`` adds its ``status``."""
    metadata = {"name": "web", "namespace": "shop", "generation": generation}
    return {
        "apiVersion": SEED_API_VERSION,
        "kind": "DeployWebService",
        "metadata": metadata,
        "spec": dict(SEED_SPEC),
        **more,
    }


def parent(
    spec: dict[str, Any] | None = None,
    *,
    namespace: str | None = "ns",
    name: str = "w",
    uid: str | None = "uid-1",
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if namespace is not None:
        metadata["namespace"] = namespace
    if uid is not None:
        metadata["uid"] = uid
    return {"apiVersion": API_VERSION, "kind": KIND, "metadata": metadata, "spec": spec or {}}


def configmap(data: str, *, name: str = "cm") -> str:
    """A ConfigMap template whose ``data`` block is ``data`` (already indented by two)."""
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n{data}"


def kind_folder(
    root: Path,
    kind_yaml_extra: str = "",
    template: str = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n",
) -> Path:
    """A kind folder ``root/web`` on disk: the smallest kind.yaml plus ``kind_yaml_extra``, one template."""
    directory = root / "web"
    directory.mkdir()
    (directory / "kind.yaml").write_text(KIND_YAML + kind_yaml_extra)
    (directory / "cm.yaml").write_text(template)
    return directory
