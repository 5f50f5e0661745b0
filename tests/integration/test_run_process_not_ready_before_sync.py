"""``/readyz`` tells whether the caches are synced, not whether the process runs: an engine
that cannot reach its API server is alive (``/healthz``) but never ready."""

from __future__ import annotations

import time
from pathlib import Path

from tests.integration._engine import ROOT, eventually
from tests.integration._process import engine_process, free_port

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

# The observation window, opened once the engine has tried its API server and failed:
# /readyz, asked every SAMPLE seconds, must answer 503 each time.
NOT_READY_WINDOW = 5.0
SAMPLE = 0.2


def test_engine_is_live_but_not_ready_without_its_caches(tmp_path: Path) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(UNREACHABLE % free_port())
    with engine_process(
        kubeconfig, tmp_path / "engine.log", "--templates", str(ROOT / "templates")
    ) as engine:
        eventually(lambda: engine.get("/healthz")[0] == 200, what="/healthz")

        def failed_to_load() -> bool:
            assert engine.get("/readyz")[0] == 503
            return "loading kinds failed" in engine.output()

        eventually(failed_to_load, what="a failed load of the kinds")
        deadline = time.monotonic() + NOT_READY_WINDOW
        while time.monotonic() < deadline:
            assert engine.get("/readyz")[0] == 503
            time.sleep(SAMPLE)
        assert engine.stop() == 0
