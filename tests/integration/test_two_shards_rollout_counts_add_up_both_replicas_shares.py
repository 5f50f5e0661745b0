"""Sharded, each replica writes its own share of a KindRollout's counts (``status.shares``, as a
field manager of its own) and the totals add up the live replicas' shares: with two replicas the
rollout's parents are both shares' sum, not the last writer's; a replica killed drops out (its
entry removed once its Lease expires) and the totals are the survivor's, who took its parents."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests.integration import _rollouts as r
from tests.integration._engine import eventually
from tests.integration._process import engine_process
from tests.integration._shards import CONTROLLER, args, network, network_resource, wait_for_members

PARENTS = 20


def _status(kube: Kube) -> dict[str, Any]:
    return (r.kind_rollout(kube, CONTROLLER) or {}).get("status") or {}


def test_two_shards_rollout_counts_add_up_both_replicas_shares(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: Any, tmp_path: Path
) -> None:
    identities = ("shard-a", "shard-b")
    with contextlib.ExitStack() as stack:
        engines = {
            name: stack.enter_context(
                engine_process(
                    local_cluster.kubeconfig,
                    tmp_path / f"{name}.log",
                    *args(namespace, name),
                    "--revisions-namespace",
                    namespace,
                )
            )
            for name in identities
        }
        try:
            wait_for_members(list(engines.values()), 2)
            manifests.apply_all(kube, [network(f"net-{i}") for i in range(PARENTS)], namespace)

            def both() -> dict[str, Any] | None:
                said = _status(kube)
                shares = said.get("shares") or {}
                counted = [shares.get(name, {}).get("parents", 0) for name in identities]
                whole = all(counted) and sum(counted) == PARENTS
                return said if whole and said.get("parents") == PARENTS else None

            said = eventually(both, timeout=120, what="both replicas' shares adding up to every parent")
            assert said["shares"]["shard-a"]["parents"] < PARENTS  # neither share is the whole
            managers = {
                m["manager"]
                for m in r.kind_rollout(kube, CONTROLLER)["metadata"]["managedFields"]  # type: ignore[index]
                if m.get("subresource") == "status"
            }
            assert {"stencil-rollout-shard-a", "stencil-rollout-shard-b"} <= managers

            engines["shard-b"].kill()
            eventually(
                lambda: (
                    set(_status(kube).get("shares") or {}) == {"shard-a"}
                    and _status(kube).get("parents") == PARENTS
                ),
                timeout=120,
                what="the killed replica's share dropped, the survivor counting every parent",
            )
        except BaseException:
            for name, engine in engines.items():
                print(f"--- {name} ---\n{engine.output()[-20000:]}")
            raise
        finally:
            for engine in engines.values():
                engine.kill()
            networks = network_resource(kube)
            for i in range(PARENTS):
                kube.delete(networks, f"net-{i}", namespace)
            r.delete_kind_rollout(kube, CONTROLLER)
