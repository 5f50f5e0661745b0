"""``python -m bench``: Stencil next to the floor of its API server and next to kro, in one run.

One local control plane (etcd, kube-apiserver, controller-manager, scheduler and enough
kwok nodes for every pod) is started; on it, one after another, for each workload and N,
the floors (Go and Python), Stencil and kro each converge N parents created while they run
(``bench.converging``), then catch up on N parents that were there before they started
(``bench.backlog``), and the offline render rate of every shipped kind is measured
(``bench.render_rate``).  The tables are printed; the JSON and the plot go to ``--out``
(``bench/results/``), named by the date.

    python -m bench                 # N = 100, 1,000 and 3,000, both workloads, all contenders;
                                    # backlogs of 1,000, 3,000 and 10,000; a cold start on 10,000
    python -m bench --quick         # N = 100 only, a backlog of 100, no cold start
    python -m bench --backlog --backlog-sizes 1000 --workloads network   # backlogs alone
    python -m bench --backlog --backlog-sizes 3000,3000 --workloads network --contenders stencil \
        --stencil-off own-writes    # Stencil with and without a machine, alternated (bench.machines)
    python -m bench --sizes 10 --backlog-sizes 10 --cold 10 --idle 5 --out /tmp/bench   # the smoke test's

kro and the Go floor are built on first use (``engine.localcluster.binaries``); if kro
cannot be built or run, or does not catch up within ``--backlog-timeout``, the reason goes
into the notes and the run goes on without it.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import tempfile
import traceback
from datetime import UTC, datetime
from pathlib import Path

from bench import backlog, coldstart, converging, machines, render_rate, report
from bench.contenders import Contender
from bench.workloads import ROOT, WORKLOADS
from engine.localcluster import binaries
from engine.localcluster.plane import LocalCluster
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests

RESULTS = Path(__file__).resolve().parent / "results"
PODS_PER_NODE = 100  # a kwok node takes 110


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="N = 100 only")
    parser.add_argument("--sizes", default="100,1000,3000", help="comma-separated N (default: %(default)s)")
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="default: %(default)s")
    parser.add_argument("--contenders", default="gofloor,floor,stencil,kro", help="default: %(default)s")
    parser.add_argument("--backlog", action="store_true", help="backlogs alone: no --sizes, no --cold")
    parser.add_argument("--backlog-sizes", default="1000,3000,10000", help="backlogs' N; '': none")
    parser.add_argument(
        "--backlog-timeout", type=float, default=backlog.TIMEOUT, help="seconds a contender has to catch up"
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=4,
        help="concurrency of every contender (default: stencil run's, %(default)s)",
    )
    parser.add_argument(
        "--stencil-tuned",
        default="",
        help="flags for a second Stencil run, e.g. '--workers 16' (default: none)",
    )
    parser.add_argument(
        "--stencil-off",
        default="",
        help="comma-separated machines of Stencil (bench.machines: own-writes, pacing), each turned "
        "off in a Stencil run of its own, after the others (default: none)",
    )
    parser.add_argument("--idle", type=float, default=60.0, help="seconds of the idle window")
    parser.add_argument(
        "--settle",
        type=float,
        default=5.0,
        help="seconds to wait after Ready and after a restart before counting writes",
    )
    parser.add_argument(
        "--cold",
        type=int,
        default=10_000,
        help="parents of the cold start (bench.coldstart), last; 0: skip (default: %(default)s)",
    )
    parser.add_argument("--render-seconds", type=float, default=1.0, help="CPU seconds per kind; 0: skip")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the JSON and PNG")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.backlog_sizes, args.cold = "100", "100", 0
    if args.backlog:
        args.sizes, args.cold = "", 0
    return args


def contenders(args: argparse.Namespace) -> list[Contender]:
    chosen = [name.strip() for name in args.contenders.split(",") if name.strip()]
    found = [Contender(name, name, workers=args.workers) for name in chosen]
    if args.stencil_tuned:
        tuned = tuple(shlex.split(args.stencil_tuned))
        found.insert(
            chosen.index("stencil") + 1 if "stencil" in chosen else len(found),
            Contender(f"stencil {args.stencil_tuned}", "stencil", tuned, workers=args.workers),
        )
    for machine in (name.strip() for name in args.stencil_off.split(",") if name.strip()):
        if machine not in machines.MACHINES:
            raise SystemExit(f"--stencil-off: no machine {machine!r} in {sorted(machines.MACHINES)}")
        found.append(Contender(f"stencil, {machine} off", "stencil", workers=args.workers, off=(machine,)))
    return found


def turns(sizes: list[int], chosen: list[Contender]) -> list[tuple[int, Contender]]:
    """Each N with every contender, one after another; an N given again is a round of its own,
    which starts with the next contender, so that none always runs first (``--backlog-sizes
    3000,3000`` alternates Stencil with and without a machine)."""
    rounds = [sizes[:i].count(n) for i, n in enumerate(sizes)]
    return [
        (n, chosen[(start + i) % len(chosen)])
        for n, start in zip(sizes, rounds, strict=True)
        for i in range(len(chosen))
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    backlog_sizes = [int(size) for size in args.backlog_sizes.split(",") if size.strip()]
    workloads = [WORKLOADS[name.strip()] for name in args.workloads.split(",")]
    notes: dict[str, str] = {}
    rates = render_rate.measure(args.render_seconds) if args.render_seconds > 0 else []
    chosen = contenders(args)
    if any(c.program == "kro" for c in chosen):
        try:
            binaries.ensure(["kro"])
        except binaries.BuildError as error:
            notes["kro"] = f"not built, left out: {error}"
            chosen = [c for c in chosen if c.program != "kro"]
    # A pod for every parent of a run, the paced ones too; the cold start's parents have none.
    pods = max([n + converging.paced_count(n) for n in sizes] + backlog_sizes + [0])
    nodes = max(1, math.ceil(pods / PODS_PER_NODE))
    results: list[converging.Result] = []
    backlogs: list[backlog.Backlog] = []
    cold: coldstart.ColdStart | None = None
    args.out.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    json_path, png_path = args.out / f"bench-{stamp}.json", args.out / f"bench-{stamp}.png"

    def keep() -> None:
        """What is measured so far, written as each contender ends: a run cut short keeps it."""
        report.write_json(json_path, results, rates, cold, {**notes, "partial": "the run went on"}, backlogs)

    with (
        tempfile.TemporaryDirectory(prefix="stencil-bench-") as scratch,
        LocalCluster(nodes=nodes) as cluster,
    ):
        admin = Kube.from_kubeconfig(str(cluster.kubeconfig))
        manifests.install_project_crds(admin, ROOT)
        if any(c.program == "kro" for c in chosen):
            manifests.install_crds(admin, binaries.ensure(["kro"])["kro"].parent / "crds")
        plane = converging.Plane.prepare(admin, cluster.kubeconfig, Path(scratch))
        for workload in workloads:
            for n, contender in turns(sizes, chosen):
                print(f"[bench] {workload.name} N={n}: {contender.label}", file=sys.stderr, flush=True)
                try:
                    results.append(converging.run(plane, contender, workload, n, args.idle, args.settle))
                    keep()
                except Exception as error:
                    if contender.program != "kro":
                        raise  # the floor and Stencil are what the benchmark is for
                    notes[f"kro {workload.name} N={n}"] = f"failed, left out: {error}"
                    traceback.print_exc()
        for workload in workloads:
            for n, contender in turns(backlog_sizes, chosen):
                print(f"[bench] backlog {workload.name} N={n}: {contender.label}", file=sys.stderr)
                try:
                    timeout = args.backlog_timeout
                    backlogs.append(backlog.run(plane, contender, workload, n, args.settle, timeout))
                    keep()
                except Exception as error:
                    if contender.program != "kro":
                        raise
                    notes[f"kro backlog {workload.name} N={n}"] = f"did not finish, left out: {error}"
                    traceback.print_exc()
        if args.cold:
            print(f"[bench] cold start: {args.cold} parents", file=sys.stderr, flush=True)
            cold = coldstart.run(plane, args.cold, args.settle)
    why_not = report.plot(png_path, results) if results else "no convergence runs: no plot"
    if why_not:
        notes["plot"] = why_not
    report.write_json(json_path, results, rates, cold, notes, backlogs)
    report.print_all(results, rates, cold, notes, backlogs)
    print(f"\nwritten: {json_path}" + ("" if why_not else f", {png_path}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
