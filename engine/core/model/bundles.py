"""A kind folder as one ConfigMap, the form in which the engine serves kinds it was not started with.

The engine watches the ConfigMaps labelled ``stencil.dev/kind-bundle=true`` in its namespace and
writes each one back as a folder, a file per key (``engine.runtime.serving.bundles``); the kind's
name is the annotation ``stencil.dev/kind-name``, else the ConfigMap's name.  What goes in is
said here once, for every writer of such ConfigMaps (the chart, through ``hack/sync-chart``, and
``stencil bundle``) and for the reader:

- ``files``: the folder's own files (``kind.yaml`` and the templates); not its ``examples/`` nor
  the golden files and fixtures of ``stencil test`` in ``tests/``, which change nothing a parent
  gets.  A ConfigMap is flat, so any other sub-folder is an error.
- ``problem``: why the engine would not write a ConfigMap as a folder (a kind name that is no DNS
  label, a key that is no plain file name, more bytes than the space left), or None.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from engine.core.model import errors, kinds
from engine.core.model.children import placement

LABEL = placement.BUNDLE_LABEL  # a ConfigMap carrying one kind folder, one file per key
NAME_ANNOTATION = "stencil.dev/kind-name"  # the kind's name, if not the ConfigMap's
SPACE = 48 * 1024 * 1024  # bytes of kind files an engine writes in all: the chart's /tmp holds 64 MiB
_NAME = re.compile(r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?")
_FILE_NAME = re.compile(r"[A-Za-z0-9_][-A-Za-z0-9_.]{0,127}")


def files(directory: Path) -> list[Path]:
    """The files of the kind folder ``directory`` that its ConfigMap carries, by name."""
    found = []
    for path in sorted(directory.iterdir()):
        if path.name.startswith("."):
            continue
        if path.is_dir():
            if path.name in (kinds.EXAMPLES_DIR, kinds.TESTS_DIR):
                continue
            raise errors.KindError(
                f"a kind ConfigMap is flat: only {kinds.EXAMPLES_DIR}/ and {kinds.TESTS_DIR}/ may be folders",
                file=str(path),
            )
        found.append(path)
    return found


def configmap(directory: Path, name: str, namespace: str) -> dict[str, Any]:
    """The ConfigMap ``namespace/name`` that carries the kind folder ``directory`` as the kind
    ``name``; an error if the engine would refuse it."""
    data = {path.name: path.read_text() for path in files(directory)}
    refused = problem(name, data, SPACE)
    if refused is not None:
        raise errors.KindError(f"the engine would not load it as a kind: {refused}", file=str(directory))
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {LABEL: "true"},
            "annotations": {NAME_ANNOTATION: name},
        },
        "data": data,
    }


def problem(name: str, data: dict[str, str], space: int) -> str | None:
    """Why a kind ConfigMap naming the kind ``name`` with ``data`` cannot be written as a kind
    folder in ``space`` bytes, or None."""
    if not _NAME.fullmatch(name):
        return f"its kind name {name[:70]!r} is not a DNS label (at most 63 of a-z, 0-9 and -)"
    for filename in data:
        if not _FILE_NAME.fullmatch(filename):
            return f"its key {filename[:70]!r} is not a plain file name"
    size = sum(len(text.encode()) for text in data.values())
    if size > space:
        return f"its {size} bytes of files do not fit in the {max(space, 0)} bytes left for kinds"
    return None
