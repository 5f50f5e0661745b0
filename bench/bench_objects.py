"""Decoding a list of Deployments: plain dicts (``json.loads``) versus the official client's models.

Why Stencil works on plain JSON dicts: the generated model classes of the
``kubernetes`` client turn every nested field into an object, parse every
timestamp and validate every assignment, and a cache of them costs several times
the memory.  Run: ``python bench/bench_objects.py [N]`` (default 1000 Deployments).
"""

from __future__ import annotations

import inspect
import json
import sys
from typing import Any

import kubernetes
from kubernetes.client import ApiClient
from measure import cpu_seconds, retained_bytes, table
from samples import deployment, list_body


def main(count: int = 1000) -> None:
    body = list_body("Deployment", [deployment(i) for i in range(count)])
    text = body.decode()
    client = ApiClient()
    # Older client releases took a response object with `.data`; recent ones take the text.
    takes_text = "response_text" in inspect.signature(client.deserialize).parameters

    def models() -> Any:
        if takes_text:
            return client.deserialize(text, "V1DeploymentList", "application/json")
        legacy: Any = client.deserialize
        return legacy(_Response(text), "V1DeploymentList")

    def stencil_cache() -> Any:
        items = json.loads(body)["items"]
        for item in items:
            item["metadata"].pop("managedFields", None)
        return items

    decoded = models()
    assert len(decoded.items) == count and decoded.items[0].metadata.name == "web-00000"

    variants = [
        ("json.loads -> dicts", lambda: json.loads(body)),
        ("json.loads, managedFields dropped", stencil_cache),
        ("ApiClient.deserialize -> V1DeploymentList", models),
    ]
    measured = [(name, cpu_seconds(work), retained_bytes(work)) for name, work in variants]
    base_cpu, base_mem = measured[0][1], measured[0][2]
    rows = [
        (name, cpu / count * 1e6, mem / count / 1024, cpu / base_cpu, mem / base_mem)
        for name, cpu, mem in measured
    ]
    print(
        f"{count} Deployments, {len(body) / count / 1024:.1f} KiB of JSON each; "
        f"kubernetes client {kubernetes.__version__}, Python {sys.version.split()[0]}"
    )
    print(table(["decoding", "µs/object", "KiB/object", "CPU ratio", "memory ratio"], rows))


class _Response:
    def __init__(self, data: str) -> None:
        self.data = data


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
