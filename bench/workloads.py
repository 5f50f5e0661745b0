"""The workloads ``python -m bench`` converges: what a parent is, for Stencil (and the floor) and for kro.

A workload is one shipped kind and the kro ResourceGraphDefinition that makes the same
children (``bench/kro/``).  The same spec goes to both: kro's instance kind takes the
fields under the same names.  Which write requests are the contender's, rather than the
cluster's reaction to them (the Deployment controller writes ReplicaSets and Deployment
status, the scheduler binds pods, kwok writes pod status), follows from the resources:
writes to a child resource itself, and writes to the parent other than the harness's
creation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
KRO_DIR = Path(__file__).resolve().parent / "kro"
KRO_GROUP = "kro.run/v1alpha1"
CONTENDER_VERBS = ("POST", "PUT", "PATCH", "APPLY", "DELETE")


@dataclass(frozen=True)
class Workload:
    """One kind to converge N of, as Stencil and as kro."""

    name: str  # the kind folder under templates/
    api_version: str
    kind: str
    plural: str
    kro_kind: str
    kro_plural: str
    spec: tuple[tuple[str, Any], ...]
    children: tuple[str, ...]  # the resources (plurals) of the children
    # The child whose readiness makes the parent Ready, told by its name's suffix
    # ("<parent>-deployment" for Stencil and kro alike), and when it is ready.
    ready_child: tuple[str, str, str]  # apiVersion, kind, name suffix
    child_ready: Callable[[dict[str, Any]], bool]
    # A spec change (a field and its k-th new value) and where the child shows it.
    change_field: str
    change_value: Callable[[int], Any]
    child_value: Callable[[dict[str, Any]], Any]

    @property
    def kind_dir(self) -> Path:
        return ROOT / "templates" / self.name

    @property
    def rgd(self) -> Path:
        return KRO_DIR / f"{self.name}.yaml"

    def parent(self, i: int, namespace: str, *, kro: bool = False, **spec: Any) -> dict[str, Any]:
        return {
            "apiVersion": KRO_GROUP if kro else self.api_version,
            "kind": self.kro_kind if kro else self.kind,
            "metadata": {"name": f"bench-{i:05d}", "namespace": namespace},
            "spec": {**dict(self.spec), **spec},
        }

    def parent_of(self, child: dict[str, Any]) -> str | None:
        """The name of the parent whose readiness child this is, or None for another child."""
        name: str = child["metadata"]["name"]
        suffix = "-" + self.ready_child[2]
        return name[: -len(suffix)] if name.endswith(suffix) else None

    def contender_writes(self, delta: Counter[str], *, kro: bool = False) -> Counter[str]:
        """The writes in ``delta`` that the contender made: to the children and to the parents
        (their status included), leaving out the harness's creation of the parents."""
        plural = self.kro_plural if kro else self.plural
        ours: Counter[str] = Counter()
        for key, value in delta.items():
            verb, _, resource = key.partition(" ")
            if verb not in CONTENDER_VERBS or not value:
                continue
            if resource in self.children or (resource.split("/")[0] == plural and key != f"POST {plural}"):
                ours[key] = value
        return ours


def _available(deployment: dict[str, Any]) -> bool:
    """A Deployment's Available=True, about its current generation."""
    status = deployment.get("status") or {}
    if status.get("observedGeneration", 0) < deployment["metadata"].get("generation", 0):
        return False
    return any(
        c.get("type") == "Available" and c.get("status") == "True" for c in status.get("conditions") or ()
    )


WORKLOADS = {
    # A Deployment and a Service a parent: Ready waits on the Deployment and ReplicaSet
    # controllers, the scheduler and kwok.
    "deploywebservice": Workload(
        "deploywebservice",
        "operator.wujiuye.com/v1beta1",
        "DeployWebService",
        "deploywebservice",
        "KroDeployWebService",
        "krodeploywebservices",
        (("image", "nginx:1.27"), ("replicas", 1), ("exposed_port", 8080)),
        ("deployments", "services"),
        ("apps/v1", "Deployment", "deployment"),
        _available,
        "image",
        lambda k: f"nginx:1.27.{k}",
        lambda child: child["spec"]["template"]["spec"]["containers"][0]["image"],
    ),
    # One ConfigMap a parent, Ready as soon as it exists: the contender's own pace.
    "network": Workload(
        "network",
        "samplecrd.k8s.io/v1",
        "Network",
        "networks",
        "KroNetwork",
        "kronetworks",
        (("cidr", "192.168.0.0/16"), ("gateway", "192.168.0.1")),
        ("configmaps",),
        ("v1", "ConfigMap", "network"),
        lambda child: True,
        "gateway",
        lambda k: f"192.168.{1 + k // 250}.{1 + k % 250}",
        lambda child: (child.get("data") or {}).get("gateway"),
    ),
}
