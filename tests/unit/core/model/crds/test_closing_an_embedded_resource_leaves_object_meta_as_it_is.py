"""Closing a CRD schema (``structural.strict``) that holds an embedded resource leaves ObjectMeta's
shared schema as it is: a CRD read after it still accepts an owner reference in a child's
metadata, whatever was read before."""

from __future__ import annotations

from engine.core.model.crds import structural

EMBEDDED = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {"template": {"type": "object", "x-kubernetes-embedded-resource": True}},
        }
    },
}
REFERENCE = {"apiVersion": "v1", "kind": "ConfigMap", "name": "p", "uid": "u", "controller": True}


def test_closing_an_embedded_resource_leaves_object_meta_as_it_is() -> None:
    structural.strict(EMBEDDED)
    plain = structural.strict({"type": "object", "x-kubernetes-preserve-unknown-fields": True})

    obj = {"apiVersion": "x/v1", "kind": "X", "metadata": {"name": "a", "ownerReferences": [REFERENCE]}}
    assert structural.pruned(plain, obj) == []
    embedded = {**obj, "spec": {"template": {"metadata": {"ownerReferences": [REFERENCE]}}}}
    assert structural.pruned(structural.strict(EMBEDDED), embedded) == []
