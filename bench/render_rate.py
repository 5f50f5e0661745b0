"""Offline render speed: children rendered per second of one core, for each shipped kind.

``rendering.render`` is the engine's CPU on every reconcile, so its pace bounds how many
parents one core can keep converged.  Each kind's examples are admitted as the API server
would keep them (validated, defaulted, given a uid) and rendered again and again; the
figure is children over process time (best of a few rounds, ``measure.cpu_seconds``), so
another process on a shared machine inflates it less than wall time would.

``in_process`` takes 4,000 DeployWebServices, read once, and measures each checked against its
CRD (schema, defaults, CEL rules) and then rendered, beside rendering alone: what validation costs
a render.  ``through_cli`` measures what a user's CI sees: ``stencil render`` of the same 4,000
in one file, as a process, with each CR checked against its CRD and without (an empty ``--crds``
folder), children over the process's CPU time; that adds starting Python, reading the YAML with
its lines and writing YAML, which ``stages`` times one by one.  ``stencil lint`` of the same file
(the CRs checked, their children rendered and checked against their kinds' schemas, the
examples' long-name renders) is measured the same way.

    python -m bench.render_rate [SECONDS_PER_KIND]      # alone; `python -m bench` runs it too
    python -m bench.render_rate --profile KIND          # cProfile of rendering KIND's examples
    python -m bench.render_rate --cli                   # only the 4,000 DeployWebServices
"""

from __future__ import annotations

import cProfile
import gc
import io
import os
import pstats
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.measure import cpu_seconds, table
from engine.core.model import errors, kinds
from engine.core.model.language import documents
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
    how: str = "in process"


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
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    crds = admission.OfflineCrds.read(ROOT / "crds", loaded.values())
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
    """Every shipped kind whose examples render children (a Playbook renders none), then
    ``in_process`` and ``through_cli``."""
    return (
        [
            rate(kind, parents, seconds)
            for kind, parents in shipped()
            if parents and any(rendering.render(kind, parent, []) for parent in parents)
        ]
        + in_process()
        + through_cli()
    )


CLI_PARENTS = 4000


def web_services(count: int) -> str:
    """``count`` DeployWebServices in one YAML stream, each with all its fields given."""
    return "---\n".join(
        f"apiVersion: operator.wujiuye.com/v1beta1\nkind: DeployWebService\n"
        f"metadata:\n  name: web-{i}\n  labels:\n    app.kubernetes.io/name: web\n"
        f"spec:\n  image: nginx:1.{i % 30}\n  replicas: {i % 4}\n  exposed_port: {8000 + i % 100}\n"
        for i in range(count)
    )


def web_service_documents(parents: int) -> list[documents.Document]:
    with tempfile.TemporaryDirectory(prefix="stencil-render-") as scratch:
        crs = Path(scratch) / "web-services.yaml"
        crs.write_text(web_services(parents))
        return documents.Document.read_all(crs, errors.StencilError)


def web_service_kind() -> tuple[kinds.Kind, admission.OfflineCrds]:
    kind = kinds.load_kind(ROOT / "templates" / "deploywebservice")
    return kind, admission.OfflineCrds.read(ROOT / "crds", [kind])


def in_process(parents: int = CLI_PARENTS, rounds: int = 3) -> list[Rate]:
    """The ``parents`` DeployWebServices, read once, admitted and rendered, and rendered alone."""
    found = web_service_documents(parents)
    kind, crds = web_service_kind()

    def admitted() -> list[dict[str, Any]]:
        return [parent for document in found if (parent := crds.admit(document, kind, NAMESPACE))]

    def rendered(parents_: list[dict[str, Any]]) -> int:
        return sum(len(rendering.render(kind, p, [], is_namespaced=crds.is_namespaced)) for p in parents_)

    ready = admitted()  # also compiles the CRD's schema and rules once, as a command does
    children = rendered(ready)
    runs = {
        "in process, CRs validated": lambda: rendered(admitted()),
        "in process, not validated": lambda: rendered(ready),
    }
    return [
        Rate("DeployWebService", parents, children / parents, children / cpu_seconds(work, rounds), how)
        for how, work in runs.items()
    ]


def stages(parents: int = CLI_PARENTS) -> list[tuple[str, float]]:
    """Where ``stencil render`` of ``parents`` DeployWebServices spends its CPU, step by step (ms):
    its imports (in a process of their own), then reading, checking, rendering and writing, with
    the collector tuned as the command tunes it."""
    from engine.tools import yamlwriting
    from engine.tools.cli._common import GC_YOUNG_THRESHOLD

    started = _child_run([sys.executable, "-c", "import engine.tools.cli.authoring.render"])[1]
    found: list[documents.Document] = []
    parents_: list[dict[str, Any]] = []
    output: list[dict[str, Any]] = []
    kind, crds = web_service_kind()
    crds.admit(web_service_documents(1)[0], kind, NAMESPACE)  # compiled once, as a command does

    def render() -> None:
        for parent in parents_:
            output.extend(rendering.render(kind, parent, [], is_namespaced=crds.is_namespaced))

    steps = {
        "read the YAML, with lines": lambda: found.extend(web_service_documents(parents)),
        "check against the CRD": lambda: parents_.extend(crds.admit(d, kind, NAMESPACE) or {} for d in found),
        "render": render,
        "write the YAML": lambda: yamlwriting.dump_all(output),
    }
    before = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)
    try:
        timed = [(step, cpu_seconds(work, rounds=1) * 1000) for step, work in steps.items()]
    finally:
        gc.set_threshold(*before)
    return [("start Python, import the command", started * 1000), *timed]


def through_cli(parents: int = CLI_PARENTS, rounds: int = 2) -> list[Rate]:
    """``stencil render`` of ``parents`` DeployWebServices in one file, validated and not, and
    ``stencil lint`` of it."""
    with tempfile.TemporaryDirectory(prefix="stencil-render-") as scratch:
        crs = Path(scratch) / "web-services.yaml"
        crs.write_text(web_services(parents))
        (Path(scratch) / "none").mkdir()
        render = [
            sys.executable,
            "-m",
            "engine.tools.cli",
            "render",
            str(ROOT / "templates" / "deploywebservice"),
        ]
        runs = {
            "stencil render, CRs validated": [*render, "-f", str(crs)],
            "stencil render, not validated": [*render, "-f", str(crs), "--crds", str(Path(scratch) / "none")],
        }
        found = []
        for how, command in runs.items():
            children, seconds = min((_child_run(command) for _ in range(rounds)), key=lambda run: run[1])
            found.append(Rate("DeployWebService", parents, children / parents, children / seconds, how))
        # Lint renders the same children (and checks each against its kind's schema), printing
        # findings rather than children: its rate counts the children the render printed.
        lint = [sys.executable, "-m", "engine.tools.cli", "lint", render[-1], "-f", str(crs)]
        seconds = min(_child_run(lint)[1] for _ in range(rounds))
        children = round(found[0].children_per_render * parents)
        found.append(
            Rate(
                "DeployWebService", parents, found[0].children_per_render, children / seconds, "stencil lint"
            )
        )
        return found


def _child_run(command: list[str]) -> tuple[int, float]:
    """The children ``command`` printed and the CPU time (user and system) it took."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        check=True,
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout.count("\nkind: ") + done.stdout.startswith("kind: "), seconds


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
    rows = [(r.kind, r.how, r.examples, r.children_per_render, r.children_per_second) for r in rates]
    return table(("kind", "measured", "parents", "children/render", "children/s/core"), rows)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--profile":
        print(profile(sys.argv[2]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--cli":
        print(render_table(in_process() + through_cli()))
        print(table(("stencil render of 4,000 DeployWebServices", "CPU ms"), stages()))
    else:
        print(render_table(measure(float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)))
