"""``stencil run`` as a child process: the command line that starts it, for the integration
tests and the benchmark alike.

It runs this Python on ``engine.tools.cli``, not an installed ``stencil`` script, so the engine
under test is the source tree's own whatever the ``PATH`` holds.  The module names the CLI
instead of importing it: ``engine.testing`` sits below ``engine.tools``.
"""

from __future__ import annotations

import sys
from pathlib import Path


def run_command(kubeconfig: Path, metrics_port: int, probe_port: int, *args: str) -> list[str]:
    """``stencil run --kubeconfig ... *args``, its /metrics in plain HTTP and its probes on these
    local ports.  ``args`` come last, so ``--metrics-secure`` among them wins."""
    return [
        sys.executable, "-m", "engine.tools.cli", "run",
        "--kubeconfig", str(kubeconfig),
        "--metrics-bind-address", f"127.0.0.1:{metrics_port}",
        "--no-metrics-secure",
        "--health-probe-bind-address", f"127.0.0.1:{probe_port}",
        *args,
    ]  # fmt: skip
