"""Applying plain manifest files: CRDs and example objects, for ``stencil dev`` and tests.

Not part of the reconcile: this is the small bit of ``kubectl apply`` the engine's
tools need, done with the same server-side apply and field manager.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.core.model import errors, kinds
from engine.core.model.language import documents
from engine.core.offline import admission
from engine.runtime.cluster.kube import Kube

CRD_API = "apiextensions.k8s.io/v1"


def read(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Every YAML mapping of the files, in order, read strictly (no duplicate keys, anchors or tags)
    and as kubectl would read them (``documents.read_applied``)."""
    return [doc.data for path in paths for doc in documents.read_applied(path) if isinstance(doc.data, dict)]


def yaml_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.glob("*.y*ml") if p.is_file())


def install_crds(
    kube: Kube, directory: Path | None, timeout: float = 60.0, kinds_: Iterable[kinds.Kind] = ()
) -> list[str]:
    """Apply every CRD under ``directory`` and those ``kinds_`` write from their ``schema:``,
    and wait until each is Established."""
    names: list[str] = []
    for doc in admission.with_generated(directory, kinds_):
        kube.apply(doc)
        names.append(doc["metadata"]["name"])
    res = kube.resource(CRD_API, "CustomResourceDefinition")
    deadline = time.monotonic() + timeout
    for name in names:
        while True:
            crd = kube.get(res, name)
            conditions = {
                c["type"]: c["status"] for c in ((crd or {}).get("status") or {}).get("conditions") or []
            }
            if conditions.get("Established") == "True":
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"CRD {name} not Established after {timeout:.0f}s")
            time.sleep(0.1)
        served(kube, crd, deadline)  # type: ignore[arg-type]
    return names


def install_project_crds(kube: Kube, root: Path, timeout: float = 60.0) -> list[str]:
    """``install_crds`` of every CRD the project at ``root`` ships: the files of ``root/crds`` and
    those the kinds under ``root/templates`` write from their ``schema:``."""
    loaded, _ = kinds.load_kinds(root / "templates")
    return install_crds(kube, root / admission.CRDS_DIR, timeout, loaded.values())


def served(kube: Kube, crd: dict[str, Any], deadline: float) -> None:
    """Wait until discovery lists the CRD's kind in each version it serves: Established says the
    server takes requests, but the discovery document is updated after it, and on a loaded
    machine a client that looks in between finds no such resource."""
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    for version in crd["spec"]["versions"]:
        api_version = f"{group}/{version['name']}"
        while version.get("served", True) and not _listed(kube, api_version, kind):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{kind} in {api_version} not in discovery after Established")
            time.sleep(0.1)
        kube.forget(api_version)


def _listed(kube: Kube, api_version: str, kind: str) -> bool:
    kube.forget(api_version)
    try:
        kube.resource(api_version, kind)
    except errors.NotFound:
        return False
    return True


def apply_all(kube: Kube, docs: Iterable[dict[str, Any]], namespace: str) -> list[dict[str, Any]]:
    """Server-side apply each object, into ``namespace`` when it names none."""
    applied = []
    for doc in docs:
        doc = {**doc, "metadata": {**doc.get("metadata", {})}}
        if kube.resource(doc["apiVersion"], doc["kind"]).namespaced:
            doc["metadata"].setdefault("namespace", namespace)
        applied.append(kube.apply(doc))
    return applied


def grant_readers(kube: Kube, kinds_: Iterable[kinds.Kind], namespace: str) -> list[str]:
    """As a namespace admin lets parents of ``namespace`` read their references: the ClusterRole
    ``stencil-reader`` of what ``stencil rbac`` derives for readers, bound there to the account each
    kind reads as (``referencing.reader``).  The accounts bound, none if no kind references anything."""
    from engine.core.decisions import referencing
    from engine.core.offline import rbac

    chosen = [kind for kind in kinds_ if kind.references]
    if not chosen:
        return []

    def resources(api_version: str, kind: str) -> tuple[str, str]:
        found = kube.resource(api_version, kind)
        return found.group, found.plural

    name = referencing.DEFAULT_READER
    apply_all(kube, [rbac.clusterrole(rbac.reader_rules(chosen, resources), name)], namespace)
    accounts = sorted({kind.read_as or referencing.DEFAULT_READER for kind in chosen})
    subjects = [{"kind": "ServiceAccount", "name": account, "namespace": namespace} for account in accounts]
    binding = {
        "apiVersion": rbac.RBAC_API_VERSION,
        "kind": "RoleBinding",
        "metadata": {"name": name},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": name},
        "subjects": subjects,
    }
    apply_all(kube, [binding], namespace)
    return accounts
