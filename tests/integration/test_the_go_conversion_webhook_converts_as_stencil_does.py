"""The conversion benchmark's Go webhook (``bench/convwebhook``) gives the objects Stencil gives.

``python -m bench.conversion`` sets the two side by side and checks them on its own requests
before it measures anything; here they meet the objects a corpus of valid WebApps does not hold
(no tag, an empty tag, a tag written into the repository, a digest, text past ASCII, a kept field a
client changed since, a stale entry of another version, no spec at all), each in a review of its
own, and the benchmark runs end to end with short windows.  Nothing here judges a figure.  The Go
webhook is built into the binaries' cache from its go.mod, as ``hack/test`` builds it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench import conversion, conversion_corpus, conversion_load
from engine.core.model.versioning.conversion import CONVERSION_DATA
from engine.localcluster import binaries
from engine.runtime.telemetry import selfsigned

ROOT = Path(__file__).resolve().parents[2]
HUB, SPOKE = conversion_corpus.HUB, conversion_corpus.SPOKE


def _webapp(
    api_version: str, spec: dict[str, Any] | None, kept: dict[str, Any] | None = None
) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": api_version,
        "kind": "WebApp",
        "metadata": {"name": "w", "namespace": "n"},
    }
    if kept is not None:
        text = json.dumps(kept, sort_keys=True, separators=(",", ":"))
        obj["metadata"]["annotations"] = {CONVERSION_DATA: text, "team": "web"}
    if spec is not None:
        obj["spec"] = spec
    return obj


CASES = [
    (HUB, {"image": "nginx", "replicas": 2, "port": 80, "tier": "backend"}, None, SPOKE),
    (HUB, {"image": "nginx:", "replicas": 2}, None, SPOKE),
    (HUB, {"image": "registry:5000/web@sha256:0a1b", "tier": "frontend"}, None, SPOKE),
    (HUB, {"image": "registry:5000/team/web"}, {"v2": [[["spec", "x"], 1]]}, SPOKE),
    (HUB, {"image": "ghcr.io/é/ü:ß", "tier": "backend"}, None, SPOKE),
    (HUB, {"image": "nginx:1", "tier": "frontend"}, {"v1alpha1": [[["spec", "tag"], ""]]}, SPOKE),
    (HUB, {"replicas": 3}, None, SPOKE),
    (HUB, None, None, SPOKE),
    (HUB, {"image": "nginx:1", "replicas": 1}, None, HUB),
    (SPOKE, {"repository": "nginx", "tag": "", "instances": 1}, None, HUB),
    (SPOKE, {"repository": "nginx:stable", "container": {"port": 81}}, None, HUB),
    (SPOKE, {"repository": "web", "tag": "2"}, {"v1": [[["spec", "tier"], "backend"]]}, HUB),
    (SPOKE, {"repository": "web"}, {"v1": [[["spec", "image"], "web:", "web"]]}, HUB),
    (SPOKE, {"repository": "web2", "tag": "3"}, {"v1": [[["spec", "image"], "web:", "web"]]}, HUB),
    (SPOKE, {"tag": "1"}, None, HUB),
    (SPOKE, None, {"v1": [[["status", "address"], "a:80"]]}, HUB),
]


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[list[conversion_load.Server], Path]]:
    folder = tmp_path_factory.mktemp("certs")
    selfsigned.in_a_child(folder, ["localhost"])
    cert, key = folder / selfsigned.CERT_NAME, folder / selfsigned.KEY_NAME
    go = binaries.ensure_module("convwebhook", conversion.GO_SOURCE)
    started = [conversion.stencil(cert, key, None)]
    try:
        started.append(conversion_load.start("Go", [str(go), "-cert", str(cert), "-key", str(key)], None))
        yield started, cert
    finally:
        for server in started:
            server.stop()


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("given", "spec", "kept", "to"), CASES)
def test_both_webhooks_give_the_same_object(
    servers: tuple[list[conversion_load.Server], Path],
    given: str,
    spec: dict[str, Any] | None,
    kept: dict[str, Any] | None,
    to: str,
) -> None:
    running, cert = servers
    review = conversion_corpus.review("uid-1", to, [_webapp(given, spec, kept)])
    body = conversion_corpus.encoded(review)
    conversion_load.check(running, [review], [body], conversion_load.client_context(cert))


@pytest.mark.timeout(600)
def test_the_benchmark_runs_and_prints_each_webhooks_figures(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "bench.conversion", "--seconds", "0.3", "--rounds", "1"]
    command += ["--warmup", "0.1", "--requests", "2", "--out", str(tmp_path)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "every object of every request converted alike" in done.stderr
    rows = [line.split()[:2] for line in done.stdout.splitlines()]
    assert {("Stencil", "4"), ("Go", "4"), ("Stencil", "1"), ("Go", "1")} <= {tuple(r) for r in rows}
    (written,) = tmp_path.glob("conversion-*.json")
    assert len(json.loads(written.read_text())["runs"]) == 4
