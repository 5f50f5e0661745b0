"""The namespace a kubeconfig's context names, read as kubectl reads it.

A command that keeps something in the cluster for the user (``stencil migrate``'s state) puts it
where kubectl would put an object naming no namespace: the namespace of the context in use, else
``default``.  The official client loads a kubeconfig (``kube.Kube.from_kubeconfig``) but tells no
namespace, so the files are read here with PyYAML, as kubectl merges them: ``path`` if given,
else each file of ``$KUBECONFIG`` in turn, else ``~/.kube/config``; the first file that sets
``current-context`` names the context, and the first that defines a context of that name has it.
A file that is missing or unreadable is skipped: loading the kubeconfig says what is wrong.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

DEFAULT = "default"


def namespace(path: str | None = None, context: str | None = None) -> str:
    """The namespace of ``context`` (else the current context) in the kubeconfig, else ``default``."""
    configs = [config for file in files(path) if isinstance(config := _read(file), Mapping)]
    chosen = context or next((c["current-context"] for c in configs if c.get("current-context")), None)
    for config in configs:
        for entry in config.get("contexts") or ():
            if isinstance(entry, Mapping) and entry.get("name") == chosen:
                found = entry.get("context")
                named = found.get("namespace") if isinstance(found, Mapping) else None
                return named if isinstance(named, str) and named else DEFAULT
    return DEFAULT


def files(path: str | None = None) -> list[Path]:
    """The kubeconfig files read, in kubectl's order."""
    if path:
        return [Path(path)]
    listed = [Path(p) for p in os.environ.get("KUBECONFIG", "").split(os.pathsep) if p]
    return listed or [Path("~/.kube/config").expanduser()]


def _read(file: Path) -> Any:
    try:
        return yaml.load(file.read_text(), Loader=yaml.CSafeLoader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return None
