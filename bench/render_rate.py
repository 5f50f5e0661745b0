"""Offline render speed: children rendered per second of one core, for each shipped kind.

``rendering.render`` is the engine's CPU on every reconcile, so its pace bounds how many
parents one core can keep converged.  Each kind's examples are admitted as the API server
would keep them (validated, defaulted, given a uid) and rendered again and again; the
figure is children over process time (best of a few rounds, ``measure.cpu_seconds``), so
another process on a shared machine inflates it less than wall time would.

    python -m bench.render_rate [SECONDS_PER_KIND]      # alone; `python -m bench` runs it too
    python -m bench.render_rate --profile KIND          # cProfile of rendering KIND's examples
"""

from __future__ import annotations

import cProfile
import io
import pstats
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.measure import cpu_seconds, table
from engine.core.model import documents, errors, kinds
from engine.core.offline import admission
from engine.core.templating import rendering

ROOT = Path(__file__).resolve().parents[1]
NAMESPACE = "bench"
UID = "00000000-0000-0000-0000-000000000001"


@dataclass(frozen=True)
class Rate:
    kind: str
    examples: int
    children_per_render: float
    children_per_second: float


def admitted(kind: kinds.Kind, crds: admission.OfflineCrds) -> list[dict[str, Any]]:
    """The kind's examples as the API server would keep them, each with a uid."""
    parents = []
    for example in kind.examples:
        for document in documents.Document.read_all(example, errors.StencilError):
            parent = crds.admit(document, kind, NAMESPACE)
            if parent is not None:
                parent["metadata"].setdefault("uid", UID)
                parents.append(parent)
    return parents


def shipped() -> list[tuple[kinds.Kind, list[dict[str, Any]]]]:
    crds = admission.OfflineCrds.read(ROOT / "crds")
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    return [(kind, admitted(kind, crds)) for _, kind in sorted(loaded.items())]


def rate(kind: kinds.Kind, parents: list[dict[str, Any]], seconds: float) -> Rate:
    def once() -> int:
        return sum(len(rendering.render(kind, parent, [])) for parent in parents)

    per_pass = once()
    # Enough passes that a round takes about `seconds` of CPU.
    passes = max(1, round(seconds / max(cpu_seconds(once, rounds=1), 1e-6)))
    best = cpu_seconds(lambda: [once() for _ in range(passes)], rounds=3)
    return Rate(kind.name, len(parents), per_pass / len(parents), per_pass * passes / best)


def measure(seconds: float = 1.0) -> list[Rate]:
    """Every shipped kind whose examples render children (a Playbook renders none)."""
    return [
        rate(kind, parents, seconds)
        for kind, parents in shipped()
        if parents and any(rendering.render(kind, parent, []) for parent in parents)
    ]


def profile(name: str, passes: int = 300, lines: int = 30) -> str:
    """The cProfile of rendering one kind's examples, by cumulative and by own time."""
    kind, parents = next((k, p) for k, p in shipped() if k.name == name)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(passes):
        for parent in parents:
            rendering.render(kind, parent, [])
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(lines)
    stats.sort_stats("tottime").print_stats(lines)
    return out.getvalue()


def render_table(rates: list[Rate]) -> str:
    rows = [(r.kind, r.examples, r.children_per_render, r.children_per_second) for r in rates]
    return table(("kind", "examples", "children/render", "children/s/core"), rows)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--profile":
        print(profile(sys.argv[2]))
    else:
        print(render_table(measure(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)))
