"""The two CRDs ``stencil plan`` compares before it plans the parents: the kind's new one, the installed one.

The new CRD is the one ``stencil crd`` writes from the kind's ``schema:``, or, for a kind whose
CRD is a hand-written file, that file (under ``--crds``, else the first of the kind's
``admission.crd_places`` that holds it).  The installed one is read from the cluster by the new
one's name, or from ``--installed-crd FILE`` (as ``kubectl get crd NAME -o yaml`` prints it; a file
of several CRDs gives the one of the kind).  ``engine.core.offline.crdchanges`` compares them.

A kind with no CRD of its own (a decorator), a hand-written CRD not found, a CRD not installed
yet or one the credentials may not read: nothing is compared, and ``notes`` says why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.core.model import errors, kinds
from engine.core.model.language import documents
from engine.core.offline import admission, crdchanges
from engine.runtime.cluster.kube import Kube

CRDS_PATH = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"


@dataclass
class Checked:
    """The report (None: nothing compared) and what to tell the user about it."""

    report: crdchanges.Report | None = None
    notes: list[str] = field(default_factory=list)


def new_crd(kind: kinds.Kind, crds_dir: Path | None) -> dict[str, Any] | None:
    """The CRD the kind folder gives its parent kind: written from ``schema:``, or the hand-written
    file; None for a decorator, or a hand-written CRD in no folder looked in."""
    if kind.crd is not None:
        return kind.crd
    if kind.decorates is not None:
        return None
    folder = crds_dir or admission.find_crds_dir(kind.directory, (kind.api_version, kind.kind))
    return _of_kind(admission.read_crds(folder), kind) if folder is not None else None


def from_file(file: Path, kind: kinds.Kind) -> dict[str, Any]:
    """The CRD of ``kind`` in ``file`` (a CRD, a ``List`` of them, or several documents)."""
    found: list[dict[str, Any]] = []
    for document in documents.Document.read_all(file, errors.StencilError):
        data = document.data
        if isinstance(data, dict) and isinstance(data.get("items"), list):
            found += [item for item in data["items"] if isinstance(item, dict)]
        elif isinstance(data, dict):
            found.append(data)
    crd = _of_kind(found, kind)
    if crd is None:
        raise errors.StencilError(
            f"no CustomResourceDefinition of {kind.kind} ({kind.api_version}) in {file}"
        )
    return crd


def from_cluster(kube: Kube, name: str) -> dict[str, Any] | None:
    """The CRD named ``name`` as the API server holds it (its status too), or None if there is none."""
    try:
        found: dict[str, Any] = kube.request("GET", CRDS_PATH + name)
    except errors.NotFound:
        return None
    return found


def check(kind: kinds.Kind, crds_dir: Path | None, installed_file: Path | None, kube: Kube | None) -> Checked:
    """The kind's new CRD compared with ``installed_file``'s, else with the cluster's (``kube``)."""
    if installed_file is None and kube is None:
        return Checked()  # offline, with no --installed-crd: nothing to compare with
    new = new_crd(kind, crds_dir)
    if new is None:
        if kind.decorates is not None:
            return Checked()
        return Checked(
            notes=[f"no CRD file for {kind.kind} ({kind.api_version}) found: its API is not compared"]
        )
    name = str((new.get("metadata") or {}).get("name", ""))
    installed: dict[str, Any] | None
    if installed_file is not None:
        installed, against = from_file(installed_file, kind), str(installed_file)
    else:
        assert kube is not None
        try:
            installed, against = from_cluster(kube, name), "the installed CRD"
        except errors.ApiError as error:
            return Checked(
                notes=[f"the installed CRD {name} could not be read ({error}): its API is not compared"]
            )
        if installed is None:
            return Checked(notes=[f"no CRD {name} is installed: its API is not compared"])
    return Checked(crdchanges.Report(name, against, tuple(crdchanges.compare(installed, new))))


def _of_kind(crds: list[dict[str, Any]], kind: kinds.Kind) -> dict[str, Any] | None:
    group = kind.api_version.rpartition("/")[0]
    for crd in crds:
        spec = crd.get("spec") or {}
        if crd.get("kind") == "CustomResourceDefinition" and (
            spec.get("group"),
            (spec.get("names") or {}).get("kind"),
        ) == (
            group,
            kind.kind,
        ):
            return crd
    return None
