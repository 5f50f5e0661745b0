"""The objects a kind's examples need from the cluster: ``tests/fixtures.yaml`` and
``tests/<example>.fixtures.yaml``.

``stencil test`` applies them before an example; offline, ``stencil lint`` and
``stencil render`` read them as what the cluster holds, so a reference or a
``child()`` read of such an object finds it as the engine would.  The files live
in ``tests/`` because every ``*.yaml`` directly in a kind folder is a template and
every ``examples/*.yaml`` an example.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.model import errors, kinds
from engine.core.model.language import documents

TESTS_DIR = kinds.TESTS_DIR
FIXTURES = "fixtures"


def paths(kind: kinds.Kind, example: Path | None = None) -> list[Path]:
    """The fixture files there are for ``example`` (a file of ``examples/``): the kind's, then the
    example's own; for no example, the kind's alone."""
    tests = kind.directory / TESTS_DIR
    candidates = [tests / f"{FIXTURES}.yaml"]
    if example is not None:
        candidates.append(tests / f"{example.stem}.{FIXTURES}.yaml")
    return [path for path in candidates if path.is_file()]


def objects(kind: kinds.Kind, example: Path | None = None) -> list[dict[str, Any]]:
    """The objects of ``paths(kind, example)``, in order; a file that does not read is an error at
    its line."""
    return [
        document.data
        for path in paths(kind, example)
        for document in documents.Document.read_all(path, errors.StencilError)
        if isinstance(document.data, dict)
    ]
