"""The webhooks of ``bench.conversion`` as processes, and the load it drives them with.

A server is started on one core (every thread it makes inherits it) and is ready once it prints
``ready https://HOST:PORT``.  The load is ``connections`` threads, each holding one keep-alive
HTTPS connection, as the API server's client does, and sending the next ConversionReview as soon
as the last is answered; a request's latency is from sending it to its answer read whole.  The
server's CPU is read from ``/proc``, the load generator's own from ``time.process_time``, both
over the same wall-clock window.
"""

from __future__ import annotations

import http.client
import json
import os
import ssl
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from bench.conversion_corpus import PER_REQUEST

HEADERS = {"Content-Type": "application/json", "Accept": "application/json"}
READY_TIMEOUT = 60.0


@dataclass
class Server:
    name: str
    process: subprocess.Popen[str]
    port: int

    def cpu_seconds(self) -> float:
        """User and system CPU of the server process, every thread of it, so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()


@dataclass
class Measured:
    contender: str
    connections: int
    round: int
    seconds: float
    requests: int
    server_cpu: float  # share of the server's core it used, 1.0 = busy throughout
    client_cpu: float  # share of the load generator's core
    latencies_ms: list[float] = field(repr=False)

    @property
    def objects_per_second(self) -> float:
        return self.requests * PER_REQUEST / self.seconds

    @property
    def objects_per_cpu_second(self) -> float:
        """Objects converted per second of the server's CPU: its rate on a core of its own."""
        return self.objects_per_second / self.server_cpu if self.server_cpu else float("nan")

    @property
    def cpu_ms_per_request(self) -> float:
        return PER_REQUEST / self.objects_per_cpu_second * 1000

    def __str__(self) -> str:
        return (
            f"{self.contender} x{self.connections}: {self.objects_per_second:,.0f} objects/s, "
            f"{self.objects_per_cpu_second:,.0f} per CPU s, server CPU {self.server_cpu:.0%}, "
            f"load generator {self.client_cpu:.0%}"
        )


def start(
    name: str,
    argv: Sequence[str],
    core: int | None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> Server:
    """``argv`` started on ``core`` alone, once it says it is ready."""

    def pin() -> None:
        if core is not None:
            os.sched_setaffinity(0, {core})

    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, preexec_fn=pin, cwd=cwd, env=env)
    assert process.stdout is not None
    out = process.stdout
    ready: list[str] = []
    reader = threading.Thread(target=lambda: ready.append(out.readline()), daemon=True)
    reader.start()
    reader.join(READY_TIMEOUT)
    if not ready or not ready[0].startswith("ready https://"):
        process.kill()
        process.wait()
        raise SystemExit(f"{name} did not start: {ready[0] if ready else 'no ready line'!r}")
    return Server(name, process, int(ready[0].strip().rsplit(":", 1)[1]))


def client_context(cert: Path) -> ssl.SSLContext:
    """Trusting the servers' certificate alone; it names localhost, and they listen on 127.0.0.1."""
    context = ssl.create_default_context(cafile=str(cert))
    context.check_hostname = False
    return context


def post(connection: http.client.HTTPSConnection, body: bytes) -> bytes:
    connection.request("POST", "/convert", body, HEADERS)
    response = connection.getresponse()
    data = response.read()
    if response.status != 200:
        raise SystemExit(f"/convert answered {response.status}: {data[:300]!r}")
    return data


def check(
    servers: Sequence[Server],
    reviews: Sequence[dict[str, Any]],
    bodies: Sequence[bytes],
    context: ssl.SSLContext,
) -> None:
    """Every request sent once to each server: the same converted objects from all, or stop."""
    connections = {s.name: http.client.HTTPSConnection("127.0.0.1", s.port, context=context) for s in servers}
    try:
        for index, (review, body) in enumerate(zip(reviews, bodies, strict=True)):
            answers = {name: orjson.loads(post(c, body))["response"] for name, c in connections.items()}
            _compare(index, review, answers)
    finally:
        for connection in connections.values():
            connection.close()


def _compare(index: int, review: dict[str, Any], answers: dict[str, Any]) -> None:
    for name, response in answers.items():
        if response.get("uid") != review["request"]["uid"] or response["result"].get("status") != "Success":
            raise SystemExit(f"{name} failed request {index}: {response.get('result')}")
    (first, expected), *others = answers.items()
    for name, response in others:
        pairs = zip(expected["convertedObjects"], response["convertedObjects"], strict=True)
        for n, (mine, theirs) in enumerate(pairs):
            if mine != theirs:
                raise SystemExit(
                    f"request {index} (to {review['request']['desiredAPIVersion']}), object {n}: "
                    f"{first} and {name} differ\ngiven: {_shown(review['request']['objects'][n])}\n"
                    f"{first}: {_shown(mine)}\n{name}: {_shown(theirs)}"
                )


def _shown(obj: Any) -> str:
    return json.dumps(obj, indent=1, sort_keys=True)


def drive(
    server: Server,
    bodies: Sequence[bytes],
    connections: int,
    seconds: float,
    context: ssl.SSLContext,
    turn: int,
) -> Measured:
    """``connections`` threads, each sending the next request as soon as its last is answered."""
    clients = [
        http.client.HTTPSConnection("127.0.0.1", server.port, context=context) for _ in range(connections)
    ]
    for client in clients:
        client.connect()  # the handshakes are not measured: the API server keeps its connections
    latencies: list[list[float]] = [[] for _ in clients]
    go = threading.Event()
    deadline = 0.0

    def send(k: int) -> None:
        client, taken, i = clients[k], latencies[k], k * 7
        go.wait()
        while (sent := time.perf_counter()) < deadline:
            post(client, bodies[i % len(bodies)])
            taken.append((time.perf_counter() - sent) * 1000)
            i += 1

    threads = [threading.Thread(target=send, args=(k,)) for k in range(connections)]
    for thread in threads:
        thread.start()
    server_before, client_before = server.cpu_seconds(), time.process_time()
    started = time.perf_counter()
    deadline = started + seconds
    go.set()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - started
    server_cpu, client_cpu = server.cpu_seconds() - server_before, time.process_time() - client_before
    for client in clients:
        client.close()
    every = [t for taken in latencies for t in taken]
    return Measured(
        server.name, connections, turn, wall, len(every), server_cpu / wall, client_cpu / wall, every
    )


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]
