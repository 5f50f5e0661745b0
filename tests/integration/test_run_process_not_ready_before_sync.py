"""``/readyz`` tells whether the caches are synced, not whether the process runs: an engine
that cannot reach its API server is alive (``/healthz``) but never ready."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.integration._engine import ROOT, eventually
from tests.integration.test_run_process_drop_in_kind_and_metrics import free_port, get

UNREACHABLE = """\
apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:%d", insecure-skip-tls-verify: true}
users:
- name: nobody
  user: {token: not-a-token}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: nobody}
current-context: nowhere
"""


def test_engine_is_live_but_not_ready_without_its_caches(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(UNREACHABLE % free_port())
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "engine.cli",
            "run",
            "--kubeconfig",
            str(kubeconfig),
            "--templates",
            str(ROOT / "templates"),
            "--metrics-bind-address",
            f"127.0.0.1:{port}",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        eventually(lambda: get(f"http://127.0.0.1:{port}/healthz")[0] == 200, what="/healthz")
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            assert get(f"http://127.0.0.1:{port}/readyz")[0] == 503
            time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGTERM)
        output = process.communicate(timeout=30)[0]
    assert process.returncode == 0, output
    assert "loading kinds failed" in output
