"""``python -m bench`` runs end to end at N=10 and writes its table and JSON, so it cannot rot.

The benchmark is run as a user runs it, as a process, with short idle and settle windows:
both floors (the Go one built from ``bench/gofloor``, as ``hack/test`` builds it), Stencil and
Stencil with each of its machines off (``bench.machines``), on parents created while they run and
on a backlog.  kro takes part when it is already built; building it is not a test's job.  Nothing
here judges a figure: the machines that run the suite are shared, and a benchmark's numbers are
read by a person, not asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.localcluster import binaries

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(1500)
def test_benchmark_runs_at_n_10_and_writes_its_table_and_json(tmp_path: Path) -> None:
    contenders = ["gofloor", "floor", "stencil"] + (["kro"] if binaries.find("kro") else [])
    machines_off = ["stencil, own-writes off", "stencil, pacing off"]
    command = [
        sys.executable,
        "-m",
        "bench",
        "--sizes",
        "10",
        "--backlog-sizes",
        "10",
        "--cold",
        "10",
        "--idle",
        "2",
        "--settle",
        "1",
        "--render-seconds",
        "0.05",
        "--contenders",
        ",".join(contenders),
        "--stencil-off",
        "own-writes,pacing",
        "--out",
        str(tmp_path),
    ]

    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=1400)

    assert done.returncode == 0, done.stderr[-4000:]
    (written,) = tmp_path.glob("bench-*.json")
    document = json.loads(written.read_text())
    runs = {(run["workload"], run["contender"]) for run in document["runs"]}
    assert runs == {
        (workload, contender)
        for workload in ("deploywebservice", "network")
        for contender in contenders + machines_off
    }
    assert all(run["n"] == 10 and run["makespan"] > 0 for run in document["runs"])
    backlogs = {(run["workload"], run["contender"]) for run in document["backlog"]}
    assert backlogs == runs
    # Both from the contender's start; not ordered: ten parents can all be Ready before a poll of
    # the contender's /readyz (every kind's caches synced) sees it ready.
    assert all(run["n"] == 10 and run["synced"] > 0 for run in document["backlog"])
    assert all(0 < run["half_ready"] <= run["p99_ready"] <= run["all_ready"] for run in document["backlog"])
    assert {rate["kind"] for rate in document["render"]} >= {"deploywebservice", "network"}
    for contender in contenders + machines_off:
        assert f" {contender} " in done.stdout
    # Stencil's own counts, read from its /metrics: every parent was reconciled and given a status.
    for run in document["runs"] + document["backlog"]:
        if run["contender"].startswith("stencil"):
            assert run["reconciles_per_cr"] >= 1 and run["status_writes_per_cr"] >= 1, run
        else:
            assert run["reconciles_per_cr"] is None and run["status_writes_per_cr"] is None, run
    assert document["cold_start"]["parents"] == 10 and document["cold_start"]["reconciles"] >= 10
    assert "Convergence" in done.stdout and "children/s/core" in done.stdout and "Backlog" in done.stdout
