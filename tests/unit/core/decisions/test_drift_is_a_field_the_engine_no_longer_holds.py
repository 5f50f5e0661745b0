"""Drift is asked of the server's managedFields: a rendered field the engine's applied set no longer
holds, never a value the server normalized, dropped, defaulted or added to."""

from typing import Any

from engine.core.decisions.plans import ownership, planning
from tests.unit._children import PARENT_UID, REACH, as_observed, configmap


def observed_with(applied: dict[str, Any], fields: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The cached child: what the server stored (``changes`` over ``applied``) and the engine's set."""
    obj = as_observed(applied, **changes)
    entry = {"manager": ownership.FIELD_MANAGER, "operation": "Apply", "fieldsV1": fields}
    obj["metadata"] = {**obj["metadata"], "managedFields": [entry]}
    return obj


META = {
    "f:metadata": {
        "f:annotations": {".": {}, f"f:{planning.HASH_ANNOTATION}": {}},
        "f:ownerReferences": {".": {}, f'k:{{"uid":"{PARENT_UID}"}}': {}},
    }
}


def secret(**body: Any) -> dict[str, Any]:
    return {**configmap("s", {}), "kind": "Secret", **body}


def test_a_secret_written_with_string_data_is_not_drift_though_the_server_returns_data() -> None:
    desired = secret(stringData={"password": "hunter2"})
    del desired["data"]
    applied = planning.with_hash(desired)
    stored = {k: v for k, v in applied.items() if k != "stringData"} | {"data": {"password": "aHVudGVyMg=="}}
    fields = {**META, "f:stringData": {".": {}, "f:password": {}}}

    observed = observed_with(stored, fields)

    assert planning.contains(observed, applied) is False  # by value it could never match
    assert planning.plan([desired], [observed], PARENT_UID, REACH).applies == ()


def pod(volumes: list[dict[str, Any]], mounts: list[dict[str, Any]]) -> dict[str, Any]:
    container = {"name": "web", "image": "nginx", "volumeMounts": mounts}
    return {
        **configmap("p", {}),
        "kind": "Pod",
        "data": None,
        "spec": {"containers": [container], "volumes": volumes},
    }


POD_FIELDS = {
    **META,
    "f:spec": {
        "f:containers": {
            'k:{"name":"web"}': {
                ".": {},
                "f:image": {},
                "f:name": {},
                "f:volumeMounts": {
                    ".": {},
                    'k:{"mountPath":"/data"}': {".": {}, "f:mountPath": {}, "f:name": {}},
                },
            }
        },
        "f:volumes": {".": {}, 'k:{"name":"data"}': {".": {}, "f:emptyDir": {}, "f:name": {}}},
    },
}


def test_a_volume_and_mount_admission_added_beside_the_rendered_ones_are_not_drift() -> None:
    desired = pod([{"name": "data", "emptyDir": {}}], [{"name": "data", "mountPath": "/data"}])
    applied = planning.with_hash(desired)
    token = {"name": "kube-api-access-x1", "projected": {"sources": []}}
    mount = {"name": "kube-api-access-x1", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}
    stored = pod([token, {"name": "data", "emptyDir": {}}], [mount, {"name": "data", "mountPath": "/data"}])
    stored["metadata"] = applied["metadata"]

    observed = observed_with(stored, POD_FIELDS)

    assert planning.contains(observed, applied) is False
    assert ownership.taken(POD_FIELDS, applied) == []
    assert planning.plan([desired], [observed], PARENT_UID, REACH).applies == ()


def test_a_mount_another_manager_took_is_drift_found_by_its_key_not_its_place() -> None:
    desired = pod([{"name": "data", "emptyDir": {}}], [{"name": "data", "mountPath": "/data"}])
    containers = POD_FIELDS["f:spec"]["f:containers"]
    without_mount = {'k:{"name":"web"}': {".": {}, "f:image": {}, "f:name": {}, "f:volumeMounts": {".": {}}}}
    fields = {**POD_FIELDS, "f:spec": {**POD_FIELDS["f:spec"], "f:containers": without_mount}}
    assert containers != without_mount

    taken = ownership.taken(fields, planning.with_hash(desired))

    assert taken == [("spec", "containers", 0, "volumeMounts", 0)]
    assert (
        planning.restores(observed_with(planning.with_hash(desired), fields), planning.with_hash(desired))
        == taken
    )


def test_nulls_empty_maps_and_defaulted_key_fields_ask_nothing_of_the_server() -> None:
    desired = {
        **configmap("np", {}),
        "kind": "NetworkPolicy",
        "data": None,
        "spec": {
            "podSelector": {"matchLabels": None},
            "ingress": [{"ports": [{"port": 80}]}],
            "egress": [],
            "policyTypes": ["Ingress"],
        },
    }
    # Held whole: a policy rule list is atomic; the port key's protocol is the server's default.
    fields = {**META, "f:spec": {"f:podSelector": {}, "f:ingress": {}, "f:policyTypes": {}}}

    assert ownership.taken(fields, planning.with_hash(desired)) == []


def test_a_value_another_writer_took_is_drift_and_a_changed_template_is_a_new_hash() -> None:
    desired = configmap("a", {"k": "v", "other": "w"})
    applied = planning.with_hash(desired)
    fields = {**META, "f:data": {".": {}, "f:other": {}}}  # "k" was taken by another manager

    observed = observed_with(applied, fields, data={"k": "edited", "other": "w"})

    assert planning.restores(observed, applied) == [("data", "k")]
    assert [a.obj["data"] for a in planning.plan([desired], [observed], PARENT_UID, REACH).applies] == [
        {"k": "v", "other": "w"}
    ]
    held = observed_with(applied, {**META, "f:data": {".": {}, "f:k": {}, "f:other": {}}})
    assert planning.plan([desired], [held], PARENT_UID, REACH).applies == ()
    changed = configmap("a", {"k": "v2", "other": "w"})
    assert len(planning.plan([changed], [held], PARENT_UID, REACH).applies) == 1


def test_a_child_the_engine_holds_nothing_of_is_applied() -> None:
    desired = configmap("a", {"k": "v"})
    observed = as_observed(planning.with_hash(desired))
    observed["metadata"] = {**observed["metadata"], "managedFields": []}

    assert len(planning.plan([desired], [observed], PARENT_UID, REACH).applies) == 1
