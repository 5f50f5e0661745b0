"""The contenders of ``python -m bench``, each run as a process of its own on the same plane.

The floors (``bench.floor`` in Python, ``bench/gofloor`` in Go with client-go), Stencil
(``stencil run``) and kro's controller are started
the same way, from a command line and a kubeconfig of the benchmark's ServiceAccount,
with their output in a file (a pipe nobody reads fills and blocks the writer), so their
peak memory and CPU time are read alike from ``/proc`` and their requests alike from the
API server's count for that account.  Each says when it is ready in its own way: Stencil
and kro answer ``/readyz``, the floors print ``ready``.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from bench.workloads import Workload
from engine.runtime.cluster.kube import Kube
from engine.testing.process import run_command

FLOORS = ("floor", "gofloor")  # the programs that send the fewest requests, and no spec change


class ContenderError(RuntimeError):
    """A contender did not start or did not become ready; the message quotes its log."""


@dataclass(frozen=True)
class Contender:
    """A way to converge a workload: ``floor``, ``gofloor``, ``stencil`` or ``kro``, with extra flags."""

    label: str  # as the table shows it: "stencil", "stencil --workers 8"
    program: str  # "floor", "gofloor", "stencil" or "kro"
    args: tuple[str, ...] = ()
    workers: int = 4  # `stencil run`'s default, which the floor and kro are given too
    off: tuple[str, ...] = ()  # Stencil's machines turned off (``bench.machines``)

    def command(
        self, workload: Workload, kubeconfig: Path, namespace: str, port: int, parents: int = 0
    ) -> list[str]:
        """The command line; Stencil is given a templates folder with the workload's kind alone
        (beside the kubeconfig), as kro is given only the workload's graph, and the Go floor
        the rendering of the ``parents`` it will meet (``bench.floorfiles``)."""
        if self.program == "gofloor":
            from bench import floorfiles

            kube = Kube.from_kubeconfig(str(kubeconfig))
            rendered = kubeconfig.parent / f"gofloor-{namespace}-{parents}.json"
            return [
                str(floorfiles.binary()),
                "--kubeconfig",
                str(kubeconfig),
                "--input",
                str(floorfiles.write(kube, workload, namespace, parents, rendered)),
                "--namespace",
                namespace,
                "--workers",
                str(self.workers),
                *self.args,
            ]
        if self.program == "floor":
            return [
                sys.executable,
                "-m",
                "bench.floor",
                "--kubeconfig",
                str(kubeconfig),
                "--kind",
                str(workload.kind_dir),
                "--namespace",
                namespace,
                "--workers",
                str(self.workers),
                *self.args,
            ]
        if self.program == "stencil":
            templates = kubeconfig.parent / f"templates-{workload.name}"
            if not templates.is_dir():
                templates.mkdir()
                (templates / workload.name).symlink_to(workload.kind_dir)
            # One plain port for /metrics and /readyz, as kro's probes and metrics are read here.
            command = run_command(
                kubeconfig,
                port,
                port,
                "--templates",
                str(templates),
                "--namespace",
                namespace,
                "--log-level",
                "WARNING",
                "--workers",
                str(self.workers),
                *self.args,
            )
            if self.off:  # the same command, through the module that turns the machines off
                python, flag, cli, *rest = command
                assert (flag, cli) == ("-m", "engine.tools.cli"), command
                command = [python, flag, "bench.machines", ",".join(self.off), *rest]
            return command
        if self.program == "kro":
            from engine.localcluster import binaries

            kro = binaries.ensure(["kro"])["kro"]
            return [
                str(kro),
                "--kubeconfig",
                str(kubeconfig),
                "--metrics-bind-address",
                "0",
                "--health-probe-bind-address",
                f"127.0.0.1:{port}",
                "--dynamic-controller-concurrent-reconciles",
                str(self.workers),
                *self.args,
            ]
        raise ValueError(f"unknown contender program {self.program!r}")


@dataclass(frozen=True)
class Counts:
    """What Stencil counted of its own work: reconciles and status writes."""

    reconciles: float
    status_writes: float


def per(counts: Counts | None, n: int, before: Counts | None = None) -> tuple[float | None, float | None]:
    """Reconciles and status writes per parent of ``n`` (those since ``before``, if given); None,
    None for a contender that counts none."""
    if counts is None or not n:
        return None, None
    if before is not None:
        counts = Counts(counts.reconciles - before.reconciles, counts.status_writes - before.status_writes)
    return counts.reconciles / n, counts.status_writes / n


@dataclass
class Running:
    """One started contender."""

    contender: Contender
    process: subprocess.Popen[bytes]
    port: int
    log: Path
    started_at: float  # time.monotonic() when the process was started

    def alive(self) -> None:
        """Raise if the process exited; asks the contender nothing (a waiting loop calls it on every
        change it sees, and a ``/readyz`` each time would load one contender and not the others)."""
        if self.process.poll() is not None:
            raise ContenderError(
                f"{self.contender.label} exited with {self.process.returncode}:\n{self.tail()}"
            )

    def ready(self) -> bool:
        self.alive()
        if self.contender.program in FLOORS:
            return b"ready" in self.log.read_bytes()
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=2) as answer:
                return bool(answer.status == 200)
        except (urllib.error.URLError, OSError):
            return False

    def wait_ready(self, timeout: float = 120.0) -> float:
        """Wait until the contender says it is ready; when (``time.monotonic()``) it was seen to."""
        deadline = time.monotonic() + timeout
        while not self.ready():
            if time.monotonic() > deadline:
                raise ContenderError(
                    f"{self.contender.label} not ready after {timeout:.0f} s:\n{self.tail()}"
                )
            time.sleep(0.1)
        return time.monotonic()

    def metrics(self) -> dict[str, float]:
        """Stencil's ``/metrics``: each metric family's samples summed over their labels."""
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/metrics", timeout=5) as answer:
            text = answer.read().decode()
        sums: dict[str, float] = {}
        for family in text_string_to_metric_families(text):
            for sample in family.samples:
                sums[sample.name] = sums.get(sample.name, 0.0) + sample.value
        return sums

    def own_counts(self) -> Counts | None:
        """Stencil's own reconciles and status writes so far (its ``/metrics``); None for the others."""
        if self.contender.program != "stencil":
            return None
        figures = self.metrics()
        return Counts(
            figures.get("controller_runtime_reconcile_total", 0.0),
            figures.get("stencil_status_writes_total", 0.0),
        )

    def peak_rss_mib(self) -> float:
        """The process's peak resident memory (``VmHWM``) so far."""
        return self._memory_mib("VmHWM:")

    def rss_mib(self) -> float:
        """The process's resident memory (``VmRSS``) now."""
        return self._memory_mib("VmRSS:")

    def _memory_mib(self, field: str) -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field):
                return int(line.split()[1]) / 1024
        return float("nan")

    def cpu_seconds(self) -> float:
        """User and system CPU time of the process so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self, timeout: float = 60.0) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def tail(self, chars: int = 4000) -> str:
        return self.log.read_text(errors="replace")[-chars:]


def start(
    contender: Contender, workload: Workload, kubeconfig: Path, namespace: str, log: Path, parents: int = 0
) -> Running:
    """Start ``contender``; ``parents`` is how many the harness creates (the Go floor's input)."""
    port = _free_port()
    command = contender.command(workload, kubeconfig, namespace, port, parents)
    started_at = time.monotonic()
    with log.open("ab") as sink:
        process = subprocess.Popen(
            command,
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    return Running(contender, process, port, log, started_at)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
