"""The API server can be taken away and brought back under a running plane, losing nothing.

The engine's correctness tests stop kube-apiserver while the engine runs and
start it again later; they can only trust what they see if the restart is the
outage they mean: etcd keeps the objects, the port and certificates stay the
same (so the engine's kubeconfig keeps working), nothing answers meanwhile, the
plane does not count the stopped server as a crash, and teardown still stops
the new server.  The plane is this test's own, not the session's, since it is
restarted; controllers run too, so that check() is seen to pass with the
clients of the API server still running.
"""

from __future__ import annotations

import socket
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

from engine.localcluster import LocalCluster
from tests.integration.test_plane_teardown import alive

pytestmark = pytest.mark.cluster

CONFIGMAP = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "kept-by-etcd", "namespace": "default"},
    "data": {"written": "before the restart"},
}
PATH = "/api/v1/namespaces/default/configmaps/kept-by-etcd"


def program(pid: int) -> str:
    argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0", 1)[0]
    return Path(argv0.decode()).name


def refuses_connections(server: str) -> bool:
    url = urllib.parse.urlsplit(server)
    try:
        socket.create_connection((url.hostname, url.port), timeout=5).close()
    except ConnectionRefusedError:
        return True
    return False


@pytest.mark.parametrize("graceful", [True, False], ids=["SIGTERM", "SIGKILL"])
def test_restarted_apiserver_serves_what_etcd_kept_and_teardown_stops_it(
    graceful: bool, connect: Any
) -> None:
    with LocalCluster(controllers=True) as cluster:
        kube = connect(cluster.kubeconfig)
        created = kube.request("POST", "/api/v1/namespaces/default/configmaps", CONFIGMAP)
        first = {pid: program(pid) for pid in cluster.pids}
        state = cluster.state_dir
        assert state is not None
        log = state / "kube-apiserver.log"
        first_run_log = log.read_bytes()

        cluster.stop_apiserver(graceful=graceful)

        (old_apiserver,) = [pid for pid, name in first.items() if name == "kube-apiserver"]
        assert not alive(old_apiserver)
        assert refuses_connections(cluster.server)  # so every request fails
        assert [pid for pid in first if alive(pid)] == [p for p in first if p != old_apiserver]
        cluster.check()  # stopped on purpose: not a dead component

        cluster.start_apiserver()

        # The same client, unchanged: same port, same certificates.
        kept = kube.request("GET", PATH)
        assert kept["data"] == CONFIGMAP["data"]
        assert kept["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]
        cluster.check()
        second = {pid: program(pid) for pid in cluster.pids}
        (new_apiserver,) = [pid for pid, name in second.items() if name == "kube-apiserver"]
        assert new_apiserver != old_apiserver
        assert log.read_bytes().startswith(first_run_log)  # the first run's log is kept

    assert [pid for pid in {**first, **second} if alive(pid)] == []
    assert not state.exists()
