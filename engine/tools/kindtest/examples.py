"""What ``stencil test`` runs: the kinds chosen, each example of theirs, and its companion files.

Each example (``examples/*.yaml``) has its companions in the kind's ``tests/``
folder: the golden file of its children (``<example>.children.yaml``), the status
to wait for instead of Ready (``<example>.status.yaml``), and the objects to apply
first, those of ``fixtures.yaml`` (for every example of the kind) and of
``<example>.fixtures.yaml``.  The companion files live in ``tests/`` because every
``*.yaml`` directly in a kind folder is a template and every ``examples/*.yaml``
an example: a file in either place would be read as one.

When a parent is not Ready in time, ``Example.why_not_ready`` says why; a parent without
any Ready condition is looked at offline too, since a CRD whose status schema prunes the
conditions the engine writes leaves no trace on the cluster (``linting.pruned_conditions``).

Choosing fails early, before a control plane is started, on a folder that is not
a kind, a name given twice, or a kind whose CRD is nowhere (``UsageError``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core.decisions import conditions, status
from engine.core.model import errors, kinds
from engine.core.offline import admission, fixtures, linting
from engine.core.offline.fixtures import FIXTURES as FIXTURES
from engine.core.offline.fixtures import TESTS_DIR as TESTS_DIR
from engine.tools import parents


class UsageError(errors.StencilError):
    """The command was asked for something that is not a test: a folder that is not a kind, say."""


@dataclass(frozen=True)
class Example:
    """One example file of a kind, and where its companion files are."""

    kind: kinds.Kind
    path: Path

    @property
    def name(self) -> str:
        return f"{self.kind.name}/{self.path.stem}"

    @property
    def golden(self) -> Path:
        """The children the example's parents should have, in their golden form."""
        return self.kind.directory / TESTS_DIR / f"{self.path.stem}.children.yaml"

    @property
    def expected_status(self) -> Path:
        """If it exists: the status to wait for instead of Ready."""
        return self.kind.directory / TESTS_DIR / f"{self.path.stem}.status.yaml"

    @property
    def fixtures(self) -> list[Path]:
        """The files of objects to apply before the example: the kind's, then the example's own."""
        return fixtures.paths(self.kind, self.path)

    def why_not_ready(self, parent: Mapping[str, Any]) -> str:
        """Why ``parent`` (one of the example's, as the API server has it) is not Ready, in a sentence:
        without any Ready condition, that the kind's CRD prunes the conditions, when it does."""
        if conditions.find(parent, status.READY) is None:
            pruned = linting.pruned_conditions(self.kind, _crds_of(self.kind))
            if pruned is not None:
                return f"no Ready condition: {pruned}"
        return parents.why_not_ready(parent)


def load(kind_dirs: Sequence[Path]) -> list[kinds.Kind]:
    """The kinds of the folders, in order; ``UsageError`` for a folder that is not a kind or a
    name given twice, ``KindError`` (file, line, field) for a kind folder that does not load."""
    loaded: list[kinds.Kind] = []
    for directory in kind_dirs:
        if not (directory / kinds.KIND_FILE).is_file():
            raise UsageError(f"{directory} is not a kind folder: it has no {kinds.KIND_FILE}")
        kind = kinds.load_kind(directory)
        if any(other.name == kind.name for other in loaded):
            raise UsageError(f"two kind folders are named {kind.name}: {directory}")
        loaded.append(kind)
    return loaded


def crds_dirs(chosen: Sequence[kinds.Kind]) -> list[Path]:
    """The CRD folders the kinds need, each once; ``UsageError`` for a kind whose CRD is nowhere."""
    found: list[Path] = []
    for kind in chosen:
        if not kind.crd_file_needed:
            continue  # written from its schema, installed with the kind (``manifests.install_crds``); none
        place = admission.find_crds_dir(kind.directory, (kind.api_version, kind.kind))
        if place is None:
            places = " or ".join(str(p) for p in admission.crd_places(kind.directory))
            raise UsageError(f"no CRD for {kind.kind} ({kind.api_version}) of {kind.directory} in {places}")
        if place.resolve() not in [p.resolve() for p in found]:
            found.append(place)
    return found


def _crds_of(kind: kinds.Kind) -> list[dict[str, Any]]:
    """The CRDs ``stencil test`` installs for ``kind``'s parent, read again: the one its ``schema:``
    writes, else those of the folder ``crds_dirs`` picks."""
    if kind.crd is not None:
        return [kind.crd]
    place = admission.find_crds_dir(kind.directory, (kind.api_version, kind.kind))
    return admission.read_crds(place) if place is not None else []
