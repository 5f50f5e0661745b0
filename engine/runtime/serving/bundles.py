"""Kinds delivered as ConfigMaps: each labelled ConfigMap of one namespace, written as a kind folder.

A kind author who may write ConfigMaps in the engine's kind namespace ships a kind as one
ConfigMap (``stencil.dev/kind-bundle=true``, a file per key; ``stencil.dev/kind-name`` names the
kind, else the ConfigMap's name: ``engine.core.model.bundles``).  ``Bundles`` keeps them cached
and writes them under a private directory that the engine loads beside its templates folder
(``engine.runtime.serving.manager``).
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

from engine.core.model import bundles
from engine.core.model.objects import Obj
from engine.runtime.cluster.informers import InformerSet
from engine.runtime.cluster.seam import Api
from engine.runtime.cluster.watching import Informer

log = logging.getLogger("stencil.controller")

BUNDLE_LABEL = bundles.LABEL  # what a kind ConfigMap is: engine.core.model.bundles
BUNDLE_NAME_ANNOTATION = bundles.NAME_ANNOTATION
BUNDLE_SPACE = bundles.SPACE


class Bundles:
    """The kind ConfigMaps of ``namespace``, and the folders written from them."""

    def __init__(self, kube: Api, informers: InformerSet, namespace: str) -> None:
        self._kube = kube
        self._informers = informers
        self.namespace = namespace
        self._cache: Informer | None = None
        self.directory = Path(tempfile.mkdtemp(prefix="stencil-kinds-"))
        self.refused: dict[str, str] = {}  # ConfigMaps not written as folders, and why (said once)
        self._by_kind: dict[str, Obj] = {}  # the ConfigMap each folder was written from, by kind name

    def watch(self) -> None:
        """Fill the cache of kind ConfigMaps, once."""
        if self._cache is None:
            cache = self._informers.ensure(
                self._kube.resource("v1", "ConfigMap"),
                namespace=self.namespace,
                label_selector=f"{BUNDLE_LABEL}=true",
            )
            if not cache.wait_for_sync(60):
                raise TimeoutError("kind ConfigMaps not listed after 60 s")
            self._cache = cache

    @property
    def watched(self) -> bool:
        return self._cache is not None

    def configmap(self, kind_name: str) -> Obj | None:
        """The ConfigMap the kind folder ``kind_name`` was written from."""
        return self._by_kind.get(kind_name)

    def source(self, kind_name: str) -> str:
        """Where the kind ``kind_name`` comes from, for a person: ``ConfigMap namespace/name``."""
        cm = self._by_kind.get(kind_name)
        return f"ConfigMap {self.namespace}/{cm['metadata']['name'] if cm else kind_name}"

    def materialize(self) -> Path:
        """Write each labelled ConfigMap's files as a kind folder under ``directory``.

        A ConfigMap that cannot be a kind folder (``bundles.problem``: a name that is not a DNS
        label, a file name that is not plain, more than the space left) is skipped and said once;
        it never stops the other kinds from loading.
        """
        assert self._cache is not None
        wanted: dict[str, dict[str, str]] = {}
        refused: dict[str, str] = {}
        by_kind: dict[str, Obj] = {}
        used = 0
        for cm in sorted(self._cache.list(), key=lambda c: str(c["metadata"]["name"])):
            meta = cm["metadata"]
            name = str((meta.get("annotations") or {}).get(BUNDLE_NAME_ANNOTATION) or meta["name"])
            files = {str(k): str(v) for k, v in (cm.get("data") or {}).items()}
            problem = bundles.problem(name, files, BUNDLE_SPACE - used)
            if problem is not None:
                refused[str(meta["name"])] = problem
                continue
            used += sum(len(text.encode()) for text in files.values())
            wanted[name] = files
            by_kind[name] = cm
        for cm_name in refused.keys() - self.refused.keys():
            log.warning("ConfigMap %s is not loaded as a kind: %s", cm_name, refused[cm_name])
        self.refused = refused
        self._by_kind = by_kind
        for folder in self.directory.iterdir():
            if folder.name not in wanted:
                shutil.rmtree(folder)
        for name, files in wanted.items():
            folder = self.directory / name
            folder.mkdir(exist_ok=True)
            for stale in folder.iterdir():
                if stale.is_file() and stale.name not in files:
                    stale.unlink()
            for filename, text in files.items():
                target = folder / filename
                if not target.exists() or target.read_text() != text:
                    target.write_text(text)
        return self.directory

    def close(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)
