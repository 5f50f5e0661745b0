"""Nothing of a local plane outlives its owner: not after a signal, not after kill -9.

These start their own planes in child Python processes, as a user would, and
look at the machine afterwards; they use no fixture, so they are marked by hand.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from engine.localcluster import binaries, plane, processes
from tests._deadlines import eventually

pytestmark = pytest.mark.cluster

# Ctrl-C reaches the command as it would from a terminal, even when this suite was started in the
# background by a shell without job control: such a shell starts its commands with SIGINT ignored,
# the children inherit that, and Python then leaves SIGINT ignored instead of raising
# KeyboardInterrupt.
CLI = (
    "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from engine.tools.cli import main; main()"
)
COMPONENTS = {"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler", "kwok"}


def alive(pid: int) -> bool:
    """Running, as opposed to gone or a zombie nobody reaped."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children(pid: int) -> dict[int, str]:
    """The live child processes of ``pid``, by program name."""
    found = {}
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            stat = stat_file.read_text()
            argv0 = (stat_file.parent / "cmdline").read_bytes().split(b"\0", 1)[0]
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found[int(stat_file.parent.name)] = Path(argv0.decode()).name
    return found


def node_ready(node: dict[str, Any]) -> bool:
    return any(c["type"] == "Ready" and c["status"] == "True" for c in node["status"]["conditions"])


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_cluster_up_serves_ready_nodes_and_leaves_nothing_after_a_signal(
    tmp_path: Path, signum: signal.Signals, connect: Any
) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    output = tmp_path / "output"
    with output.open("wb") as out:
        cli = subprocess.Popen(
            [sys.executable, "-c", CLI, "cluster", "up", "--nodes", "1", "--kubeconfig", str(kubeconfig)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        eventually(lambda: kubeconfig.exists() or cli.poll() is not None, timeout=180, what="the kubeconfig")
        assert cli.poll() is None, output.read_text()

        # The file appears only when the cluster is ready: no waiting from here on.
        kube = connect(kubeconfig)
        assert kube.request("GET", "/version")["gitVersion"] == binaries.KUBERNETES_VERSION
        assert [node_ready(n) for n in kube.request("GET", "/api/v1/nodes")["items"]] == [True]
        components = children(cli.pid)
        assert set(components.values()) == COMPONENTS
        state_dirs = list(Path(tempfile.gettempdir()).glob(f"{plane.STATE_PREFIX}{cli.pid}-*"))
        assert len(state_dirs) == 1

        cli.send_signal(signum)
        cli.wait(timeout=60)
    finally:
        if cli.poll() is None:
            cli.kill()
            cli.wait()

    assert cli.returncode == 0, output.read_text()
    assert [pid for pid in components if alive(pid)] == []
    assert not state_dirs[0].exists()
    assert not kubeconfig.exists()


STARTER = """
import json, time
from engine.localcluster import LocalCluster
cluster = LocalCluster().start()
print(json.dumps({"pids": cluster.pids, "state": str(cluster.state_dir)}), flush=True)
time.sleep(600)
"""


def test_components_die_with_a_killed_parent_and_its_state_is_swept_later(tmp_path: Path) -> None:
    errors = tmp_path / "stderr"
    with errors.open("wb") as err:
        owner = subprocess.Popen([sys.executable, "-c", STARTER], stdout=subprocess.PIPE, stderr=err)
    try:
        assert owner.stdout is not None
        line = owner.stdout.readline()
        assert line, errors.read_text()
        started = json.loads(line)
    finally:
        owner.kill()
        owner.wait()
        if owner.stdout is not None:
            owner.stdout.close()
    state = Path(started["state"])

    eventually(
        lambda: not any(alive(pid) for pid in started["pids"]),
        what="the components to die with their parent",
    )

    assert state.exists()  # kill -9 left no chance to clean up ...
    processes.sweep_orphaned_state()
    assert not state.exists()  # ... so the next start does it
