"""Each kind's roles for its users: admin and edit may write the parents (admin alone may
delete them by collection), view only reads them, and no role writes the status, which is
the engine's; each ClusterRole aggregates into the built-in role of its name."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.core.offline import rbac

ROOT = Path(__file__).resolve().parents[4]
WRITES = {"create", "update", "patch", "delete"}
READS = {"get", "list", "watch"}


def test_roles_of_the_deploywebservice_kind() -> None:
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    kind = loaded["deploywebservice"]

    roles = rbac.user_roles([kind], rbac.offline_resources(ROOT / "crds", [kind]))
    documents = {d["metadata"]["name"]: d for d in rbac.user_clusterroles(roles, "ops")}

    assert sorted(documents) == [
        "ops-deploywebservice-admin",
        "ops-deploywebservice-edit",
        "ops-deploywebservice-view",
    ]
    verbs = {
        (name.rsplit("-", 1)[1], resource): set(rule["verbs"])
        for name, d in documents.items()
        for rule in d["rules"]
        for resource in rule["resources"]
        if rule["apiGroups"] == ["operator.wujiuye.com"]
    }
    assert verbs[("admin", "deploywebservice")] == WRITES | READS | {"deletecollection"}
    assert verbs[("edit", "deploywebservice")] == WRITES | READS
    assert verbs[("view", "deploywebservice")] == READS
    assert all(verbs[(role, "deploywebservice/status")] == READS for role in ("admin", "edit", "view"))
    assert len(verbs) == 6  # nothing else, in no other group
    for name, d in documents.items():
        role = name.rsplit("-", 1)[1]
        assert d["metadata"]["labels"] == {f"rbac.authorization.k8s.io/aggregate-to-{role}": "true"}
