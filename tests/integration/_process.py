"""Real child processes for integration tests: ``stencil run``, and ``helm`` with the chart.

``stencil run`` runs as a process when a test needs more than one engine, a real
exit, or a kubeconfig other than the admin's.  The engine's output goes to a
file, not a pipe: a chatty engine fills a pipe's buffer within a test and then
blocks on its next log line, which looks exactly like a hung reconcile.  The
file is read back when a test fails.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from engine.localcluster import binaries
from engine.testing.process import run_command
from tests.integration._engine import ROOT

CHART = ROOT / "charts" / "stencil"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_get(url: str) -> tuple[int, str]:
    """Status and body of a GET; status 0 while nothing listens yet."""
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()
    except OSError:
        return 0, ""


def samples(text: str, series: str, **labels: str) -> list[float]:
    """Every sample of ``series`` in a Prometheus exposition whose labels include ``labels``."""
    found = []
    for line in text.splitlines():
        name, _, rest = line.partition("{")
        if name == series and all(f'{k}="{v}"' in rest for k, v in labels.items()):
            found.append(float(line.rsplit(" ", 1)[1]))
    return found


PROBES = ("/healthz", "/livez", "/readyz")


@dataclass
class EngineProcess:
    """One running ``stencil run`` and the addresses of its metrics and of its probes."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    probe_port: int

    def get(self, path: str) -> tuple[int, str]:
        """A GET of a probe on the probe port, or of anything else on the (plain) metrics port."""
        port = self.probe_port if path.split("?", 1)[0] in PROBES else self.port
        return http_get(f"http://127.0.0.1:{port}{path}")

    def metric(self, series: str, **labels: str) -> list[float]:
        """The samples of ``series`` on this engine's /metrics; fails if the endpoint does not answer."""
        status, text = self.get("/metrics")
        assert status == 200, f"/metrics answered {status}; engine log:\n{self.output()}"
        return samples(text, series, **labels)

    def ready(self) -> bool:
        return self.get("/readyz")[0] == 200

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def kill(self) -> None:
        """SIGKILL: no lease release, no draining; what a crashed node looks like."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM and wait: the engine's graceful shutdown."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=timeout)


@contextlib.contextmanager
def engine_process(
    kubeconfig: Path, log: Path, *args: str, env: Mapping[str, str] | None = None
) -> Iterator[EngineProcess]:
    """``stencil run --kubeconfig ... *args`` (``engine.testing.process.run_command``), logging
    JSON, its metrics and probes on free ports; ``env`` added to this process's environment (the
    downward API's ``POD_NAME``, say).

    Always killed on the way out, whatever the test did; a test that wants to see a clean exit
    calls ``stop()`` itself first.
    """
    port, probe_port = free_port(), free_port()
    with log.open("wb") as sink:
        process = subprocess.Popen(
            run_command(kubeconfig, port, probe_port, "--log-format", "json", *args),
            stdout=sink,
            stderr=subprocess.STDOUT,
            # Unbuffered, so that the log of an engine killed with SIGKILL is complete.
            env={**os.environ, **(env or {}), "PYTHONUNBUFFERED": "1"},
        )
    engine = EngineProcess(process, port, log, probe_port)
    try:
        yield engine
    finally:
        engine.kill()


def helm(kubeconfig: Path, *args: str) -> str:
    """Run helm against the local cluster; its stdout, or a failure that quotes its stderr."""
    found = binaries.find("helm")
    assert found is not None, "helm is not built: python -m engine.localcluster.binaries helm"
    done = subprocess.run(
        [str(found), "--kubeconfig", str(kubeconfig), *args], capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, f"helm {' '.join(args)} failed:\n{done.stderr}"
    return done.stdout


@contextlib.contextmanager
def chart_installed(kubeconfig: Path, release: str, namespace: str, *values: str) -> Iterator[str]:
    """``helm install <release> charts/stencil -n <namespace> --set <values>``; uninstalled afterwards.

    Yields the install's output.  The release's cluster-scoped objects (ClusterRole and
    binding) outlive the test namespace, so they are removed by uninstalling, never left
    to namespace deletion.
    """
    sets = [arg for value in values for arg in ("--set", value)]
    output = helm(kubeconfig, "install", release, str(CHART), "--namespace", namespace, *sets)
    try:
        yield output
    finally:
        helm(kubeconfig, "uninstall", release, "--namespace", namespace, "--wait")
