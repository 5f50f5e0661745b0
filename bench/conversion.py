"""``python -m bench.conversion``: a kind's conversion webhook, Stencil's beside one written in Go.

Both serve HTTPS ``POST /convert`` on 127.0.0.1 with the same self-signed certificate, each
pinned to one core: **Stencil** (``bench.conversion_stencil``: the engine's conversion of
examples/webapp behind a small HTTPS server) and **Go** (``bench/convwebhook``: the same mapping
written by hand with unstructured maps and the upstream ConversionReview types, built from its
go.mod into the binaries' cache like the Go floor).  ``--stencil-at REV`` adds Stencil with the
engine of another commit, to show what a change of the engine does in the same run.  The load
generator is this process, on another core: threads each holding one keep-alive HTTPS
connection, as the API server's client does, sending ConversionReviews of 100 WebApps
(``bench.conversion_corpus``: half toward ``v1alpha1``, half toward ``v1``, with and without the
annotation of what a version cannot hold).

First every request of the corpus goes to each webhook once, and the converted objects must be
the same from all, or the run stops saying where they differ.  Then, in rounds that rotate which
contender goes first (a shared machine slows each alike within a round), each is driven for
``--seconds`` with ``--connections`` connections at once (its throughput) and with one (the
latency of a request that queues behind none).  Printed for each: objects/s of each round; the
objects converted per CPU second of the server (its rate on a core of its own, which holds where
other work takes part of the core); the server's CPU ms per request; p50 and p99 request latency
over the rounds; the share of their cores the server and the load generator used (the server
near 100 % and the load generator well below it says the server is what is measured); then the
ratios to Stencil within each round.  ``--profile`` samples the Stencil server with py-spy in one
more loaded run and says where its time goes (``bench.conversion_profile``).  The JSON goes to
``--out``.

    python -m bench.conversion                        # 3 rounds of 10 s per contender and load
    python -m bench.conversion --seconds 3 --rounds 1 # a quick look
    python -m bench.conversion --stencil-at main --profile
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from io import BytesIO
from pathlib import Path

from bench import conversion_corpus as corpus
from bench import conversion_profile
from bench.conversion_load import Measured, Server, check, client_context, drive, percentile, start
from bench.measure import table
from bench.workloads import ROOT
from engine.localcluster import binaries
from engine.runtime.telemetry import selfsigned

KIND_DIR = ROOT / "examples" / "webapp"
GO_SOURCE = ROOT / "bench" / "convwebhook"
RESULTS = ROOT / "bench" / "results"
STENCIL, GO = "Stencil", "Go"
GOAL_OBJECTS_PER_SECOND, GOAL_P99_MS = 5_000, 20.0
# What the server of an older engine needs beside it: this checkout's server module and kind.
BESIDE = ("bench/__init__.py", "bench/conversion_stencil.py")


def engine_at(revision: str, folder: Path) -> Path:
    """A tree with the engine of ``revision`` and this checkout's Stencil server, to run from."""
    tree = folder / f"engine-{revision.replace('/', '-')}"
    archive = subprocess.run(
        ["git", "archive", revision, "engine"], cwd=ROOT, check=True, capture_output=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    for path in BESIDE:
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_bytes((ROOT / path).read_bytes())
    return tree


def stencil(cert: Path, key: Path, core: int | None, name: str = STENCIL, tree: Path = ROOT) -> Server:
    argv = [sys.executable, "-m", "bench.conversion_stencil", str(KIND_DIR), str(cert), str(key)]
    # python -m puts the working folder first on the path: the tree's engine is the one imported.
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return start(name, argv, core, cwd=tree, env=env)


def summary(runs: Sequence[Measured], names: Sequence[str]) -> list[list[object]]:
    rows: list[list[object]] = []
    for connections in sorted({r.connections for r in runs}):
        for name in names:
            mine = [r for r in runs if r.contender == name and r.connections == connections]
            every = [t for r in mine for t in r.latencies_ms]
            rows.append(
                [
                    name,
                    connections,
                    " ".join(f"{r.objects_per_second:,.0f}" for r in mine),
                    statistics.median(r.objects_per_second for r in mine),
                    statistics.median(r.objects_per_cpu_second for r in mine),
                    statistics.median(r.cpu_ms_per_request for r in mine),
                    percentile(every, 0.50),
                    percentile(every, 0.99),
                    f"{statistics.median(r.server_cpu for r in mine):.0%}",
                    f"{statistics.median(r.client_cpu for r in mine):.0%}",
                ]
            )
    return rows


def ratios(runs: Sequence[Measured], name: str, connections: int, figure: str) -> list[float]:
    """``name``'s figure over Stencil's, round by round."""
    by = {(r.contender, r.round): getattr(r, figure) for r in runs if r.connections == connections}
    turns = sorted({r.round for r in runs})
    return [by[name, t] / by[STENCIL, t] for t in turns if (name, t) in by and (STENCIL, t) in by]


def verdict(runs: Sequence[Measured], connections: int) -> str:
    loaded = [r for r in runs if r.contender == STENCIL and r.connections == connections]
    alone = [t for r in runs if r.contender == STENCIL and r.connections == 1 for t in r.latencies_ms]
    rate = statistics.median(r.objects_per_second for r in loaded)
    per_core = statistics.median(r.objects_per_cpu_second for r in loaded)
    p99 = percentile(alone, 0.99)
    meets = "meets" if per_core >= GOAL_OBJECTS_PER_SECOND else "misses"
    said = [
        f"{per_core:,.0f} objects per CPU second ({rate:,.0f}/s on its shared core) {meets} the goal "
        f"of {GOAL_OBJECTS_PER_SECOND:,}/s",
        f"p99 {p99:.1f} ms at one connection {'meets' if p99 <= GOAL_P99_MS else 'misses'} the goal "
        f"of {GOAL_P99_MS:.0f} ms",
    ]
    return "Stencil: " + "; ".join(said)


def cores() -> tuple[int | None, int | None]:
    """The servers' core and the load generator's: two of this process's, or none if it has one."""
    mine = sorted(os.sched_getaffinity(0))
    return (mine[0], mine[1]) if len(mine) >= 2 else (None, None)


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.conversion", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seconds", type=float, default=10.0, help="each contender's time per load and round"
    )
    parser.add_argument("--rounds", type=int, default=3, help="default: %(default)s")
    parser.add_argument("--connections", type=int, default=4, help="connections of the loaded run")
    parser.add_argument("--requests", type=int, default=40, help="distinct ConversionReviews sent in turn")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds of load before the rounds")
    parser.add_argument(
        "--stencil-at", default="", help="comma-separated commits: Stencil with each one's engine"
    )
    parser.add_argument(
        "--profile", action="store_true", help="py-spy of the Stencil server, after the rounds"
    )
    parser.add_argument(
        "--out", type=Path, default=RESULTS, help="folder of the JSON (default: bench/results)"
    )
    return parser.parse_args(argv)


def run(args: argparse.Namespace, folder: Path, say: Callable[[str], None]) -> tuple[list[Measured], str]:
    server_core, client_core = cores()
    if client_core is None:
        say("note: one core only: the servers and the load generator share it")
    else:
        os.sched_setaffinity(0, {client_core})  # before any thread: every one inherits it
        say(f"servers on core {server_core}, load generator on core {client_core}")
    selfsigned.in_a_child(folder, ["localhost"])
    cert, key = folder / selfsigned.CERT_NAME, folder / selfsigned.KEY_NAME
    go_binary = binaries.ensure_module("convwebhook", GO_SOURCE)
    reviews = corpus.requests(args.requests)
    bodies = [corpus.encoded(r) for r in reviews]
    size = sum(map(len, bodies)) / len(bodies) / 1024
    say(f"{len(bodies)} ConversionReviews of {corpus.PER_REQUEST} WebApps, {size:.0f} KiB each")
    context = client_context(cert)
    servers = [stencil(cert, key, server_core)]
    try:
        for revision in filter(None, args.stencil_at.split(",")):
            tree = engine_at(revision, folder)
            servers.append(stencil(cert, key, server_core, f"{STENCIL}@{revision}", tree))
        servers.append(start(GO, [str(go_binary), "-cert", str(cert), "-key", str(key)], server_core))
        check(servers, reviews, bodies, context)
        say(f"{', '.join(s.name for s in servers)}: every object of every request converted alike")
        for server in servers:
            drive(server, bodies, args.connections, args.warmup, context, -1)
        runs = []
        for turn in range(args.rounds):
            order = servers[turn % len(servers) :] + servers[: turn % len(servers)]
            for server in order:
                for connections in (args.connections, 1):
                    runs.append(drive(server, bodies, connections, args.seconds, context, turn))
                    say(f"round {turn + 1}: {runs[-1]}")
        profile = ""
        if args.profile:
            loaded = [r for r in runs if r.contender == STENCIL and r.connections == args.connections]
            server_ms = statistics.median(r.cpu_ms_per_request for r in loaded)
            split = conversion_profile.in_process(KIND_DIR, bodies, server_ms)
            profile = profiled(servers[0], bodies, args, context, folder) + "\n" + split
        return runs, profile
    finally:
        for server in servers:
            server.stop()


def profiled(
    server: Server, bodies: Sequence[bytes], args: argparse.Namespace, context: ssl.SSLContext, folder: Path
) -> str:
    """py-spy's samples of ``server`` under the loaded run's load, sorted."""
    if not conversion_profile.available():
        return "py-spy is not installed: no profile"
    out = folder / "stencil.pyspy"
    spy = conversion_profile.record(server.process.pid, args.seconds, out)
    drive(server, bodies, args.connections, args.seconds + 1, context, -1)
    _, error = spy.communicate()
    if not out.is_file():
        return f"py-spy failed: {error.decode(errors='replace').strip()[-300:]}"
    return conversion_profile.summary(out.read_text())


def report(args: argparse.Namespace, runs: Sequence[Measured], profile: str) -> None:
    names = list(dict.fromkeys(r.contender for r in runs))
    headers = [
        "webhook",
        "conns",
        "objects/s each round",
        "objects/s",
        "objects/CPU s",
        "CPU ms/req",
        "p50 ms",
        "p99 ms",
        "server CPU",
        "load gen CPU",
    ]
    print(table(headers, summary(runs, names)))
    for name in names[1:]:
        for connections in (args.connections, 1):
            for figure, said in (
                ("objects_per_second", "objects/s"),
                ("objects_per_cpu_second", "objects/CPU s"),
            ):
                each = ratios(runs, name, connections, figure)
                rounds = " ".join(f"{r:.2f}" for r in each)
                median = statistics.median(each)
                print(f"{name} ÷ Stencil, {said} at {connections} conn.: {rounds} (median {median:.2f})")
    print(verdict(runs, args.connections))
    busy = [r for r in runs if r.client_cpu > 0.8]
    if busy:
        print(f"note: the load generator used over 80 % of its core in {len(busy)} of {len(runs)} runs")
    if profile:
        print(profile)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(argv)

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="stencil-convbench-") as folder:
        runs, profile = run(args, Path(folder), say)
    report(args, runs, profile)
    from bench import report as reports  # the plane's versions beside the machine

    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"conversion-{datetime.now(UTC):%Y%m%dT%H%M%SZ}.json"
    document = {
        "machine": reports.machine(),
        "args": {k: str(v) for k, v in vars(args).items()},
        "runs": [
            {k: v for k, v in asdict(r).items() if k != "latencies_ms"}
            | {
                "objects_per_second": r.objects_per_second,
                "objects_per_cpu_second": r.objects_per_cpu_second,
                "p50_ms": percentile(r.latencies_ms, 0.5),
                "p99_ms": percentile(r.latencies_ms, 0.99),
            }
            for r in runs
        ],
        "profile": profile,
    }
    path.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
