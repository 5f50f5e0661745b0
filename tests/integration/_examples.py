"""A kind shipped under ``examples/``, served from a copy of its folder: the engine reads the copy,
so a test may rewrite the copy's kind.yaml (to show what a setting changes) and nothing of the
repository's; the CRDs the kind needs are installed first (those its ``schema:`` writes, and its
own ``crds/`` folder)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from engine.core.model import kinds
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests


def served(kube: Kube, kind_dir: Path, tmp_path: Path, kind_yaml: Callable[[str], str] | None = None) -> Path:
    """The templates folder holding a copy of ``kind_dir``, its kind.yaml rewritten by ``kind_yaml``,
    with the kind's CRDs installed and Established."""
    templates = tmp_path / "templates"
    copy = templates / kind_dir.name
    shutil.copytree(kind_dir, copy)
    if kind_yaml is not None:
        written = copy / kinds.KIND_FILE
        written.write_text(kind_yaml(written.read_text()))
    crds = copy / "crds"
    manifests.install_crds(kube, crds if crds.is_dir() else None, kinds_=[kinds.load_kind(copy)])
    return templates
