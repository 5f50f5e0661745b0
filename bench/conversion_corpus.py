"""The ConversionReviews ``bench.conversion`` sends: WebApps of examples/webapp, 100 a request.

Half the requests ask for ``v1alpha1`` and hold objects at ``v1`` (a client reading the old
version; objects are stored at the hub), half ask for ``v1`` and hold objects at ``v1alpha1`` (a
client writing it).  Each object is as the API server sends one: metadata with a uid, a
resourceVersion, labels and the managed fields of a server-side apply, a status on most, and
every key sorted (the API server writes an object's map keys in order).  Of the ``v1`` objects
some hold what ``v1alpha1`` could not (the tag a client wrote into ``repository``), kept in
``stencil.dev/conversion-data``; of the ``v1alpha1`` objects half carry the tier ``v1`` kept there
when they were read, and a few lose a field on the way (a repository with a tag and no ``tag``).
"""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import orjson

from engine.core.model.versioning.conversion import CONVERSION_DATA

GROUP = "examples.stencil.dev"
HUB, SPOKE = f"{GROUP}/v1", f"{GROUP}/v1alpha1"
PER_REQUEST = 100
NAMESPACE = "bench"
# (repository, tag): with a registry port, nested paths, no tag
IMAGES = (
    ("nginx", "1.27"),
    ("registry.internal:5000/team/checkout", "2.14.1"),
    ("ghcr.io/acme/api-gateway", "v3.2.0-rc.1"),
    ("busybox", None),
    ("quay.io/prometheus/node-exporter", "v1.8.2"),
    ("localhost:5000/web", None),
)
TAGGED_REPOSITORY = ("nginx:stable", None)  # a tag written into repository, at v1alpha1


def _metadata(rng: random.Random, index: int, version: str, fields: dict[str, Any]) -> dict[str, Any]:
    name = f"web-{index:05d}"
    return {
        "creationTimestamp": "2026-12-01T10:00:00Z",
        "generation": rng.randint(1, 9),
        "labels": {"app.kubernetes.io/name": name, "team": rng.choice(("payments", "search", "web"))},
        "managedFields": [
            {
                "apiVersion": version,
                "fieldsType": "FieldsV1",
                "fieldsV1": {"f:spec": {f"f:{key}": {} for key in sorted(fields)}},
                "manager": "kubectl",
                "operation": "Apply",
                "time": "2026-12-01T10:00:00Z",
            }
        ],
        "name": name,
        "namespace": NAMESPACE,
        "resourceVersion": str(rng.randint(10_000, 999_999)),
        "uid": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
    }


def _kept(version: str, entries: list[Any]) -> str:
    return json.dumps({version: entries}, sort_keys=True, separators=(",", ":"))


def hub_object(rng: random.Random, index: int) -> dict[str, Any]:
    """A WebApp as stored, at ``v1`` (its defaults applied); one in four keeps a v1alpha1 field."""
    annotated = index % 4 == 0
    repository, tag = TAGGED_REPOSITORY if annotated else rng.choice(IMAGES)
    spec = {
        "image": repository + (f":{tag}" if tag else ""),
        "port": rng.choice((80, 8080, 8443)),
        "replicas": rng.randint(1, 5),
        "tier": rng.choice(("frontend", "backend")),
    }
    obj: dict[str, Any] = {"apiVersion": HUB, "kind": "WebApp"}
    obj["metadata"] = _metadata(rng, index, HUB, spec)
    if annotated:
        entry = [["spec", "repository"], "nginx:stable", "nginx"]
        obj["metadata"]["annotations"] = {CONVERSION_DATA: _kept("v1alpha1", [entry])}
    obj["spec"] = spec
    if index % 4 != 3:
        obj["status"] = {"address": f"web-{index:05d}.{NAMESPACE}:80"}
    return obj


def spoke_object(rng: random.Random, index: int) -> dict[str, Any]:
    """A WebApp a client writes at ``v1alpha1``: half carry the tier v1 kept when it was read."""
    repository, tag = TAGGED_REPOSITORY if index % 10 == 5 else rng.choice(IMAGES)
    spec: dict[str, Any] = {
        "container": {"port": rng.choice((80, 8080, 8443))},
        "instances": rng.randint(1, 5),
        "repository": repository,
    }
    if tag:
        spec["tag"] = tag
    obj: dict[str, Any] = {"apiVersion": SPOKE, "kind": "WebApp"}
    obj["metadata"] = _metadata(rng, index, SPOKE, spec)
    if index % 2 == 0:
        tier = rng.choice(("frontend", "backend"))
        obj["metadata"]["annotations"] = {CONVERSION_DATA: _kept("v1", [[["spec", "tier"], tier]])}
    obj["spec"] = spec
    if index % 3 != 0:
        obj["status"] = {"address": f"web-{index:05d}.{NAMESPACE}:80"}
    return obj


def review(uid: str, desired: str, objects: list[dict[str, Any]]) -> dict[str, Any]:
    request = {"uid": uid, "desiredAPIVersion": desired, "objects": objects}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview", "request": request}


def requests(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """``count`` ConversionReviews, alternately toward ``v1alpha1`` and toward ``v1``."""
    rng = random.Random(seed)
    made = []
    for n in range(count):
        down = n % 2 == 0
        first = n * PER_REQUEST
        make = hub_object if down else spoke_object
        objects = [make(rng, first + i) for i in range(PER_REQUEST)]
        uid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        made.append(review(uid, SPOKE if down else HUB, objects))
    return made


def encoded(review: dict[str, Any]) -> bytes:
    """The request's body as the API server sends it: compact JSON, every object's keys sorted."""
    return orjson.dumps(review, option=orjson.OPT_SORT_KEYS)
