"""What ``python -m bench`` prints and keeps: one table with ratios, a JSON file and a PNG plot.

The ratios Stencil/Go floor, Stencil/floor and Stencil/kro are taken within one run, on one plane, so they
hold on a noisy shared machine where the absolute figures do not travel.  The JSON keeps
every figure of every run with the machine and versions it ran on; the plot (CR/s and peak
memory against N, one line per contender) is drawn only when matplotlib is installed (the
``bench`` extra), and its absence is said rather than failed on.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.backlog import Backlog
from bench.coldstart import ColdStart
from bench.converging import Result
from bench.measure import table
from bench.render_rate import Rate, render_table

FLOOR, GOFLOOR, STENCIL, KRO = "floor", "gofloor", "stencil", "kro"
RATIOS = {GOFLOOR: "÷gofloor", FLOOR: "÷floor", KRO: "÷kro"}  # the ratios' columns, in this order
KEY = ("workload", "N", "contender")  # the first columns of every table of runs


def machine() -> dict[str, Any]:
    """The machine and versions a run's figures belong to."""
    from engine.localcluster import binaries

    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpu": cpu,
        "cores": os.cpu_count(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "load_average": os.getloadavg(),
        "python": platform.python_version(),
        "kubernetes": binaries.KUBERNETES_VERSION,
        "etcd": binaries.ETCD_VERSION,
        "kwok": binaries.KWOK_VERSION,
        "kro": binaries.KRO_VERSION,
        "stencil_commit": _commit(),
    }


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).parent,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def ratio(results: Sequence[Any], of: Result | Backlog, to: str, field: str) -> float | None:
    """``of``'s figure over the same run's figure of contender ``to`` (same workload and N)."""
    other = next((r for r in results if r.contender == to and (r.workload, r.n) == (of.workload, of.n)), None)
    if other is None or not getattr(other, field):
        return None
    return float(getattr(of, field)) / float(getattr(other, field))


def convergence_table(results: Sequence[Result]) -> str:
    headers = (
        *KEY,
        "makespan s",
        "CR/s",
        *RATIOS.values(),
        "req/CR",
        "writes/CR",
        "reconciles/CR",
        "status/CR",
        "p50 s",
        "p99 s",
        "RSS MiB",
        "CPU s",
        "idle req",
        "restart writes",
    )
    rows = []
    for r in results:
        vs_gofloor = ratio(results, r, GOFLOOR, "makespan") if r.contender != GOFLOOR else None
        vs_floor = ratio(results, r, FLOOR, "makespan") if r.contender != FLOOR else None
        vs_kro = ratio(results, r, KRO, "makespan") if r.contender.startswith(STENCIL) else None
        rows.append(
            (
                r.workload,
                r.n,
                r.contender,
                r.makespan,
                r.per_second,
                _ratio(vs_gofloor),
                _ratio(vs_floor),
                _ratio(vs_kro),
                r.requests_per_cr,
                r.writes_total_per_cr,
                _ratio(r.reconciles_per_cr),
                _ratio(r.status_writes_per_cr),
                r.ready_p50,
                r.ready_p99,
                r.peak_rss_mib,
                r.cpu_seconds,
                r.idle_requests,
                r.restart_writes,
            )
        )
    return table(headers, rows)


def writes_table(results: Sequence[Result]) -> str:
    """The contenders' writes per CR by verb and resource."""
    rows = [
        (r.workload, r.n, r.contender, key, value) for r in results for key, value in r.writes_per_cr.items()
    ]
    return table(("workload", "N", "contender", "verb resource", "per CR"), rows)


def latency_table(results: Sequence[Result]) -> str:
    """Where the time goes: the contender's own lag, a spec change on an idle set, half saturation;
    and Stencil's own reconciles and status writes per spec change and per paced parent."""
    headers = (
        *KEY,
        "lag p50 ms",
        "lag p99 ms",
        "change p50 ms",
        "change p99 ms",
        "change reconciles",
        "change status",
        "paced CR/s",
        "paced p50 s",
        "paced p99 s",
        "paced reconciles",
        "paced status",
    )
    rows = [
        (
            r.workload,
            r.n,
            r.contender,
            r.lag_p50 * 1000,
            r.lag_p99 * 1000,
            "—" if r.change_p50 is None else r.change_p50 * 1000,
            "—" if r.change_p99 is None else r.change_p99 * 1000,
            _ratio(r.change_reconciles),
            _ratio(r.change_status_writes),
            r.paced_rate,
            r.paced_p50,
            r.paced_p99,
            _ratio(r.paced_reconciles),
            _ratio(r.paced_status_writes),
        )
        for r in results
    ]
    return table(headers, rows)


def _ratio(value: float | None) -> str:
    """A ratio, or a contender's own count per parent (which only Stencil gives), or a dash."""
    return "—" if value is None else f"{value:.2f}"


def backlog_table(runs: Sequence[Backlog]) -> str:
    columns = (
        "synced s",
        "½ Ready s",
        "99% Ready s",
        "all Ready s",
        *RATIOS.values(),
        "CR/s",
        "req/CR",
        "writes/CR",
        "reconciles/CR",
        "status/CR",
        "CPU ms/CR",
    )
    headers = (*KEY, *columns, "RSS MiB")
    rows = [
        (
            r.workload,
            r.n,
            r.contender,
            r.synced,
            r.half_ready,
            r.p99_ready,
            r.all_ready,
            *(_ratio(ratio(runs, r, to, "all_ready") if r.contender != to else None) for to in RATIOS),
            r.n / r.all_ready if r.all_ready > 0 else float("inf"),
            r.requests_per_cr,
            r.writes_total_per_cr,
            _ratio(r.reconciles_per_cr),
            _ratio(r.status_writes_per_cr),
            r.cpu_ms_per_cr,
            r.peak_rss_mib,
        )
        for r in runs
    ]
    return table(headers, rows)


def cold_table(cold: ColdStart) -> str:
    headers = (
        "parents",
        "children",
        "synced s",
        "idle s",
        "reconciles",
        "writes",
        "RSS MiB",
        "peak MiB",
        "CPU s",
    )
    row = (
        cold.parents,
        cold.children,
        cold.synced_seconds,
        cold.idle_seconds,
        cold.reconciles,
        cold.writes,
        cold.rss_mib,
        cold.peak_rss_mib,
        cold.cpu_seconds,
    )
    return table(headers, [row])


def write_json(
    path: Path,
    results: Sequence[Result],
    rates: Sequence[Rate],
    cold: ColdStart | None,
    notes: dict[str, str],
    backlogs: Sequence[Backlog] = (),
) -> None:
    document = {
        "machine": machine(),
        "runs": [{**dataclasses.asdict(r), "writes_total_per_cr": r.writes_total_per_cr} for r in results],
        "render": [dataclasses.asdict(rate) for rate in rates],
        "backlog": [
            {**dataclasses.asdict(b), "writes_total_per_cr": b.writes_total_per_cr} for b in backlogs
        ],
        "cold_start": dataclasses.asdict(cold) if cold else None,
        "notes": notes,
    }
    path.write_text(json.dumps(document, indent=2) + "\n")


def plot(path: Path, results: Sequence[Result]) -> str | None:
    """CR/s and peak RSS against N, per workload and contender; why not, if it cannot be drawn."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install -e '.[bench]'): no plot"
    workloads = sorted({r.workload for r in results})
    figure, axes = plt.subplots(2, len(workloads), figsize=(6 * len(workloads), 8), squeeze=False)
    for column, workload in enumerate(workloads):
        for contender in dict.fromkeys(r.contender for r in results if r.workload == workload):
            runs = sorted(
                (r for r in results if (r.workload, r.contender) == (workload, contender)), key=lambda r: r.n
            )
            sizes = [r.n for r in runs]
            axes[0][column].plot(sizes, [r.per_second for r in runs], marker="o", label=contender)
            axes[1][column].plot(sizes, [r.peak_rss_mib for r in runs], marker="o", label=contender)
        axes[0][column].set_title(f"{workload}: CRs Ready per second")
        axes[1][column].set_title(f"{workload}: peak RSS (MiB)")
        for row in (0, 1):
            axes[row][column].set_xscale("log")
            axes[row][column].set_xlabel("N")
            axes[row][column].legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return None


def print_all(
    results: Sequence[Result],
    rates: Sequence[Rate],
    cold: ColdStart | None,
    notes: dict[str, str],
    backlogs: Sequence[Backlog] = (),
) -> None:
    out = sys.stdout
    if rates:
        out.write("\nOffline render, one core\n" + render_table(list(rates)) + "\n")
    if results:
        out.write(
            "\nConvergence (÷gofloor, ÷floor, ÷kro: makespan ratios in this run)\n"
            + convergence_table(results)
            + "\n"
        )
        out.write("\nWrites per CR, create → Ready\n" + writes_table(results) + "\n")
        out.write(
            "\nLatency (lag: child ready → parent Ready; change: spec change → child; "
            "paced: create → Ready at half the CR/s)\n" + latency_table(results) + "\n"
        )
    if backlogs:
        out.write(
            "\nBacklog: N parents there before the contender starts (times from its start; "
            "÷: all-Ready ratios in this run)\n" + backlog_table(backlogs) + "\n"
        )
    if cold:
        out.write(
            f"\nCold start on {cold.parents:,} converged DeployWebServices (seeded by the floor in "
            f"{cold.seed_seconds:.0f} s; the floor held {cold.floor_rss_mib:.0f} MiB with them cached)\n"
            + cold_table(cold)
            + "\n"
        )
    for key, note in notes.items():
        out.write(f"\n{key}: {note}\n")
    out.flush()
