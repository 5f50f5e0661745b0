"""What ``stencil render``'s own YAML writer saves: ``yamlwriting.dump_all`` against PyYAML's dumpers.

``stencil render`` prints the children it rendered with ``yamlwriting.dump_all``, which lays the
documents out itself and asks libyaml only for the text of each distinct scalar; the text is
libyaml's safe dumper's, byte for byte.  This writes the same children three ways, in alternated
rounds in one process (so another process on a shared machine slows each alike), with the
collector tuned as the command tunes it:

- **yamlwriting**: ``yamlwriting.dump_all(children)``, what the command runs;
- **CSafeDumper**: ``yaml.dump_all(children, Dumper=yaml.CSafeDumper, sort_keys=False,
  allow_unicode=True)``, the text ``dump_all`` is held to, libyaml's emitter fed by PyYAML's
  representer and resolver;
- **safe_dump_all**: ``yaml.safe_dump_all(children, sort_keys=False, allow_unicode=True)``, the
  plain call, all in Python.

The children are those of ``PARENTS`` DeployWebServices (two each, ``render_rate.web_services``),
and of every shipped kind's examples, each copied until they are as many (a dumper writes an
object met twice as an alias).  Each is checked to be the same text all three ways.  Printed:
CPU ms of each round, the median and best of each, and the ratio of the medians.

    python -m bench.yaml_writer [PARENTS] [ROUNDS]      # default 4,000 parents, 7 rounds
"""

from __future__ import annotations

import copy
import gc
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import yaml

from bench import render_rate
from bench.measure import table
from engine.core.templating import rendering
from engine.tools import yamlwriting
from engine.tools.cli._common import GC_YOUNG_THRESHOLD

WRITERS: dict[str, Callable[[list[Any]], str]] = {
    "yamlwriting": yamlwriting.dump_all,
    "CSafeDumper": lambda documents: yaml.dump_all(
        documents, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True
    ),
    "safe_dump_all": lambda documents: yaml.safe_dump_all(documents, sort_keys=False, allow_unicode=True),
}


def web_service_children(parents: int) -> list[Any]:
    """The children ``stencil render`` prints for ``parents`` DeployWebServices."""
    found = render_rate.web_service_documents(parents)
    kind, crds = render_rate.web_service_kind()
    children: list[Any] = []
    for document in found:
        parent = crds.admit(document, kind, render_rate.NAMESPACE)
        if parent is not None:
            children += rendering.render(kind, parent, [], is_namespaced=crds.is_namespaced)
    return children


def shipped_children(count: int) -> list[Any]:
    """Every shipped kind's examples' children, copied until there are ``count`` of them."""
    once: list[Any] = []
    for kind, parents in render_rate.shipped():
        for parent in parents:
            once += rendering.render(kind, parent, [])
    return [copy.deepcopy(once[i % len(once)]) for i in range(count)]


def rounds_of(children: list[Any], rounds: int) -> dict[str, list[float]]:
    """CPU seconds of each writer, ``rounds`` times, the writers alternated within each round."""
    texts = {name: write(children) for name, write in WRITERS.items()}
    assert len(set(texts.values())) == 1, "the writers wrote different text"
    taken: dict[str, list[float]] = {name: [] for name in WRITERS}
    before = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)
    try:
        for turn in range(rounds):
            # Each round starts with another writer, so none always runs first after a collection.
            order = list(WRITERS)[turn % len(WRITERS) :] + list(WRITERS)[: turn % len(WRITERS)]
            for name in order:
                gc.collect()
                started = time.process_time()
                WRITERS[name](children)
                taken[name].append(time.process_time() - started)
    finally:
        gc.set_threshold(*before)
    return taken


def main(parents: int = render_rate.CLI_PARENTS, rounds: int = 7) -> None:
    web = web_service_children(parents)
    inputs = {
        f"{parents:,} DeployWebServices' children": web,
        "shipped kinds' example children": shipped_children(len(web)),
    }
    print(f"PyYAML {yaml.__version__}, libyaml {yaml.__with_libyaml__}; CPU ms per round, rounds alternated")
    for what, children in inputs.items():
        taken = rounds_of(children, rounds)
        median = {name: statistics.median(times) for name, times in taken.items()}
        rows = [
            (
                name,
                " ".join(f"{t * 1000:.0f}" for t in times),
                median[name] * 1000,
                min(times) * 1000,
                median[name] / median["yamlwriting"],
            )
            for name, times in taken.items()
        ]
        size = len(WRITERS["yamlwriting"](children)) / 1024
        print(f"\n{what}: {len(children):,} documents, {size:,.0f} KiB")
        print(table(["writer", "each round, ms", "median ms", "best ms", "÷ yamlwriting"], rows))


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:3]))
