"""A kubeconfig's server may carry a path (a proxy such as Rancher's ``/k8s/clusters/<id>``): every
request, a watch's too, goes under that path, and the metrics name the server by host and port."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler

from engine.runtime.cluster.kube import Resource
from tests.unit._throttling import serving

PREFIX = "/k8s/clusters/c-1"
CONFIGMAPS = Resource("", "v1", "ConfigMap", "configmaps", True)


def test_every_request_and_watch_goes_under_the_servers_path() -> None:
    seen: list[str] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with lock:
                seen.append(self.path)
            if "watch=true" in self.path:
                body = json.dumps({"type": "BOOKMARK", "object": {"metadata": {"resourceVersion": "7"}}})
                payload = (body + "\n").encode()
            else:
                payload = json.dumps({"kind": "ConfigMap", "metadata": {"name": "a"}}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass

    answered: list[tuple[str, str, int]] = []
    with serving(Handler, prefix=PREFIX) as kube:
        kube.observe(lambda server, method, status: answered.append((server, method, status)))
        got = kube.get(CONFIGMAPS, "a", "default")
        events = list(kube.watch(CONFIGMAPS, "5", namespace="default", timeout_seconds=1))

    assert got == {"kind": "ConfigMap", "metadata": {"name": "a"}}
    assert events == [("BOOKMARK", {"metadata": {"resourceVersion": "7"}})]
    assert seen[0] == f"{PREFIX}/api/v1/namespaces/default/configmaps/a"
    assert seen[1].startswith(f"{PREFIX}/api/v1/namespaces/default/configmaps?watch=true&")
    assert len(seen) == 2
    assert len(answered) == 2
    assert all(server.startswith("127.0.0.1:") and "/" not in server for server, _, _ in answered)
