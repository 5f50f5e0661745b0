"""The engine's seed key on a real API server: replicas starting at once, each as the engine's
ServiceAccount with exactly the namespace rules ``stencil rbac`` grants, agree on one key, and a
restart reads the same key."""

from __future__ import annotations

import base64
import threading
from typing import Any

import pytest

from engine.core.model.language import seedkeys
from engine.core.offline import rbac
from engine.runtime.cluster import seedsecret
from engine.runtime.cluster.kube import Kube

REPLICAS = 6


def _binding(namespace: str, role: str, subject: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": f"{role}-binding", "namespace": namespace},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": role},
        "subjects": [subject],
    }


@pytest.fixture
def engine_account(kube: Kube, namespace: str) -> Kube:
    """A client acting as the engine's ServiceAccount in ``namespace``, granted only its Role there."""
    kube.create(
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "stencil", "namespace": namespace},
        }
    )
    kube.create(rbac.role(rbac.namespace_rules("stencil-leader"), "stencil-engine", namespace))
    account = {"kind": "ServiceAccount", "name": "stencil", "namespace": namespace}
    kube.create(_binding(namespace, "stencil-engine", account))
    return kube.impersonating(f"system:serviceaccount:{namespace}:stencil")


def _stored_key(kube: Kube, namespace: str) -> bytes:
    secret = kube.get(kube.resource("v1", "Secret"), seedkeys.SECRET_NAME, namespace)
    assert secret is not None
    return base64.b64decode(secret["data"]["key"])


def test_replicas_starting_at_once_agree_on_one_key_and_a_restart_reads_it(
    kube: Kube, namespace: str, engine_account: Kube
) -> None:
    start, keys, failures = threading.Barrier(REPLICAS), [], []

    def replica() -> None:
        start.wait()
        try:
            keys.append(seedsecret.read_or_create(engine_account, namespace))
        except Exception as exc:  # reported below, with what the others got
            failures.append(exc)

    threads = [threading.Thread(target=replica) for _ in range(REPLICAS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures
    assert len(keys) == REPLICAS and len(set(keys)) == 1
    [key] = set(keys)
    assert len(key) == seedkeys.SIZE and key == _stored_key(kube, namespace)

    assert seedsecret.read_or_create(engine_account, namespace) == key  # a restart
