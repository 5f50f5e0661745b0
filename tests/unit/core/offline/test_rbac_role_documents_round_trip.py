"""`stencil rbac` output is plain YAML that loads back into the same ClusterRole and Role, and the
Role narrows Lease updates to the one Lease the engine uses."""

import yaml

from engine.core.offline import rbac


def test_dumped_roles_load_back_unchanged() -> None:
    rules = rbac.merge([("apps", "deployments", rbac.CHILD_VERBS)])
    documents = [
        rbac.clusterrole(rules, "stencil"),
        rbac.role(rbac.namespace_rules("lease-x"), "stencil", "ops"),
    ]

    loaded = list(yaml.load_all(rbac.dump(documents), Loader=yaml.CSafeLoader))

    assert loaded == documents
    assert [(d["kind"], d["metadata"].get("namespace")) for d in loaded] == [
        ("ClusterRole", None),
        ("Role", "ops"),
    ]
    lease_updates = [r for r in loaded[1]["rules"] if "update" in r["verbs"]]
    assert lease_updates == [
        {
            "apiGroups": ["coordination.k8s.io"],
            "resources": ["leases"],
            "resourceNames": ["lease-x"],
            "verbs": ["get", "update"],
        }
    ]
