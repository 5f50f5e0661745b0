"""Sharded ``stencil run`` replicas on the local control plane, and reading what they did.

Each replica is a process of its own (``_process.engine_process``) with ``--shards``, short
Lease timings so that the tests are quick, and JSON logs, which the tests read back: who
reconciled which parent and wrote its child, who released it, and whom the sharder gave it.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import sharding
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests._deadlines import eventually_all
from tests.integration._engine import ROOT, eventually
from tests.integration._process import EngineProcess, engine_process

LEASE_DURATION = 4.0
RENEW_DEADLINE = 3.0
RETRY_PERIOD = 0.5
# Beyond every wait of these tests: what converges in one did so by an event, not a resync.
RESYNC = 600.0
CONTROLLER = "network"
NETWORK = "samplecrd.k8s.io/v1"
REPLICAS = ("shard-a", "shard-b", "shard-c")  # the replicas a test runs first


def args(namespace: str, identity: str) -> list[str]:
    return [
        "--templates", str(ROOT / "templates"),
        "--namespace", namespace,
        "--shards",
        "--shard-identity", identity,
        "--leader-elect-namespace", namespace,
        "--leader-elect-identity", identity,
        "--leader-elect-lease-duration", str(LEASE_DURATION),
        "--leader-elect-renew-deadline", str(RENEW_DEADLINE),
        "--leader-elect-retry-period", str(RETRY_PERIOD),
        "--workers", "4",
        "--resync", str(RESYNC),
    ]  # fmt: skip


@contextlib.contextmanager
def replica(kubeconfig: Path, logs: Path, namespace: str, identity: str) -> Iterator[EngineProcess]:
    with engine_process(kubeconfig, logs / f"{identity}.log", *args(namespace, identity)) as engine:
        yield engine


def network(name: str, cidr: str = "10.0.0.0/16") -> dict[str, Any]:
    return {
        "apiVersion": NETWORK,
        "kind": "Network",
        "metadata": {"name": name},
        "spec": {"cidr": cidr, "gateway": cidr.rsplit(".", 2)[0] + ".0.1"},
    }


def members(engine: EngineProcess) -> float:
    """The live members the sharder sees (0 on a replica that is not the sharder, or not up yet)."""
    status, text = engine.get("/metrics")
    lines = text.splitlines() if status == 200 else []
    return sum(float(line.split()[1]) for line in lines if line.startswith("stencil_shard_members "))


def held(engine: EngineProcess) -> float:
    return sum(engine.metric("stencil_shard_parents", controller=CONTROLLER))


def network_resource(kube: Kube) -> Resource:
    return kube.resource(NETWORK, "Network")


def rendezvous_owner(namespace: str, name: str, members: Iterable[str]) -> str | None:
    """The member a Network's owner label should name: its rendezvous choice among ``members``."""
    return sharding.owner_of(sharding.parent_key(NETWORK, "Network", namespace, name), frozenset(members))


def owners(kube: Kube, namespace: str) -> dict[str, str | None]:
    """Each Network's owner label, as the API server has it."""
    items, _ = kube.list(network_resource(kube), namespace)
    return {n["metadata"]["name"]: sharding.labels_of(n).get(sharding.OWNER_LABEL) for n in items}


def published(kube: Kube, namespace: str) -> dict[str, str]:
    """Each Network's name and the cidr its ConfigMap holds."""
    items, _ = kube.list(kube.resource("v1", "ConfigMap"), namespace, "app.kubernetes.io/managed-by=stencil")
    return {
        c["metadata"]["name"].removesuffix("-network"): (c.get("data") or {}).get("cidr", "") for c in items
    }


def reported(kube: Kube, namespace: str) -> int:
    """How many Networks say Ready at their generation: a replica writes a parent's status last,
    after its child, its log line and its counters, so these are done for every one counted."""
    items, _ = kube.list(network_resource(kube), namespace)
    return sum(1 for n in items if _ready_at_generation(n))


def _ready_at_generation(network: dict[str, Any]) -> bool:
    generation = network["metadata"].get("generation")
    ready = [c for c in (network.get("status") or {}).get("conditions", []) if c["type"] == "Ready"]
    return bool(ready) and ready[0]["status"] == "True" and ready[0].get("observedGeneration") == generation


def log_lines(engine: EngineProcess) -> list[dict[str, Any]]:
    lines = []
    for line in engine.output().splitlines():
        with contextlib.suppress(ValueError):
            lines.append(json.loads(line))
    return lines


def writes(engine: EngineProcess) -> list[tuple[str, str]]:
    """(time, parent name) of every reconcile of this replica that wrote a child."""
    return [
        (line["time"], line["key"].partition("/")[2])
        for line in log_lines(engine)
        if line.get("message") == "reconciled" and (line.get("applied") or line.get("pruned"))
    ]


class Replicas(dict[str, EngineProcess]):
    """The replicas a test runs, by identity; ``start`` runs one more."""

    def __init__(
        self,
        stack: contextlib.ExitStack,
        kubeconfig: Path,
        logs: Path,
        namespace: str,
        kubeconfigs: Mapping[str, Path],
    ) -> None:
        super().__init__()
        self._stack, self._kubeconfig, self._logs, self._namespace = stack, kubeconfig, logs, namespace
        self._kubeconfigs = kubeconfigs

    def start(self, identity: str) -> EngineProcess:
        """Run replica ``identity`` (as its own kubeconfig, if it has one) until the test ends."""
        kubeconfig = self._kubeconfigs.get(identity, self._kubeconfig)
        self[identity] = self._stack.enter_context(replica(kubeconfig, self._logs, self._namespace, identity))
        return self[identity]


@contextlib.contextmanager
def replicas(
    kubeconfig: Path,
    logs: Path,
    namespace: str,
    identities: Iterable[str] = (),
    *,
    kubeconfigs: Mapping[str, Path] | None = None,
) -> Iterator[Replicas]:
    """Replicas ``identities`` running (a test may start more); every replica's log is printed if
    the test fails.  ``kubeconfigs`` gives a replica its own credentials (``_writers``)."""
    with contextlib.ExitStack() as stack:
        engines = Replicas(stack, kubeconfig, logs, namespace, kubeconfigs or {})
        try:
            for identity in identities:
                engines.start(identity)
            yield engines
        except BaseException:
            for name, engine in engines.items():
                print(f"--- {name} ---\n{engine.output()[-20000:]}")
            raise


@contextlib.contextmanager
def converged(
    kube: Kube, kubeconfig: Path, logs: Path, namespace: str, parents: int, names: tuple[str, ...] = REPLICAS
) -> Iterator[tuple[Replicas, EngineProcess]]:
    """Replicas ``names`` running, seen by the sharder, and ``parents`` Networks converged on them;
    yields the replicas (a test may start more) and the sharder.  Their logs are printed if the test
    fails.  The Networks are deleted at the end, not left to the namespace's slow deletion: they are
    labelled for replicas other tests (``stencil shards``) would count."""
    with replicas(kubeconfig, logs, namespace, names) as engines:
        try:
            sharder = wait_for_members(list(engines.values()), len(names))
            manifests.apply_all(kube, [network(f"net-{i}") for i in range(parents)], namespace)
            eventually_all(lambda: len(published(kube, namespace)), parents, what="ConfigMaps published")
            yield engines, sharder
        finally:
            for engine in engines.values():
                engine.kill()
            networks = network_resource(kube)
            for i in range(parents):
                kube.delete(networks, f"net-{i}", namespace)


def wait_for_members(engines: list[EngineProcess], count: int, timeout: float = 90) -> EngineProcess:
    """The replica whose sharder sees ``count`` live members."""
    return eventually(
        lambda: next((e for e in engines if members(e) == count), None),
        timeout=timeout,
        what=f"a sharder seeing {count} members",
    )
