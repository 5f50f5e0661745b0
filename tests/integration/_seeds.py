"""The five seed operators as the integration tests meet them.

Each ``Seed`` names its kind folder (whose kind.yaml's ``schema:`` writes Stencil's CRD for it),
its sample CR (in the folder's ``examples/``, as the seed wrote it), the CRD the seed would have
installed (``seed_crds/``, rebuilt from the seed's Go types and markers), and a probe for the
state the seed's own controller would have brought a CR to: its children present and its status
as the seed reported it. The sample test and the migration
test both judge convergence by these probes, so "what the seed would reach" is written once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.core.model import kinds
from engine.core.model.objects import Obj
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, conditions

SEED_CRDS = Path(__file__).resolve().parent / "seed_crds"

# (kube, the parent's resource, the parent as last read, its namespace) -> the parent once it shows
# the seed's state, else None.
Probe = Callable[[Kube, Resource, Obj, str], Obj | None]


@dataclass(frozen=True)
class Seed:
    number: str
    folder: str
    api_version: str
    kind: str
    sample: str  # metadata.name of the seed's sample CR in the folder's examples/
    converged: Probe

    @property
    def seed_crd(self) -> Path:
        return SEED_CRDS / f"{self.number}_{self.folder}.yaml"

    @property
    def stencil_kind(self) -> kinds.Kind:
        """The seed's kind, whose kind.yaml writes Stencil's CRD for it from its ``schema:``."""
        return kinds.load_kind(ROOT / "templates" / self.folder)

    def sample_cr(self) -> dict[str, Any]:
        """The sample CR exactly as the examples folder holds it."""
        examples = manifests.read(manifests.yaml_files(ROOT / "templates" / self.folder / "examples"))
        return next(doc for doc in examples if doc["metadata"]["name"] == self.sample)


def _true(obj: Obj, *types: str) -> bool:
    found = conditions(obj)
    return all(found.get(type_, {}).get("status") == "True" for type_ in types)


def _deploywebservice(kube: Kube, _res: Resource, parent: Obj, namespace: str) -> Obj | None:
    """The seed's four conditions True, its Deployment at spec.replicas with pods labelled
    ``webservice: <name>``, and its NodePort Service forwarding port 80 to spec.exposed_port."""
    name, spec = parent["metadata"]["name"], parent["spec"]
    # Ready is Stencil's own: the seed never wrote it, so its stale conditions cannot pass for converged.
    seed_conditions = (
        "DeploymentProgressing",
        "DeploymentAvailable",
        "ServiceProgressing",
        "ServiceAvailable",
    )
    if not _true(parent, "Ready", *seed_conditions):
        return None
    deployment = kube.get(kube.resource("apps/v1", "Deployment"), f"{name}-deployment", namespace)
    service = kube.get(kube.resource("v1", "Service"), f"{name}-service", namespace)
    if deployment is None or service is None:
        return None
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    port = service["spec"]["ports"][0]
    ok = (
        deployment["spec"]["replicas"] == spec["replicas"]
        and labels.get("webservice") == name
        and service["spec"]["type"] == "NodePort"
        and (port["port"], port["targetPort"]) == (80, spec["exposed_port"])
        and service["spec"]["selector"] == {"webservice": name}
    )
    return parent if ok else None


def _mysqlcluster(kube: Kube, _res: Resource, parent: Obj, namespace: str) -> Obj | None:
    """Its servers at spec.size running the version the user meant, and status.nodes naming
    exactly the pods the seed's labels select."""
    name, size = parent["metadata"]["name"], parent["spec"]["size"]
    stateful_set = kube.get(kube.resource("apps/v1", "StatefulSet"), name, namespace)
    if stateful_set is None or stateful_set["spec"]["replicas"] != size:
        return None
    pods = kube.list(kube.resource("v1", "Pod"), namespace, f"app=mysqlcluster,mysqlcluster_cr={name}")[0]
    names = sorted(pod["metadata"]["name"] for pod in pods)
    image = stateful_set["spec"]["template"]["spec"]["containers"][0]["image"]
    ok = len(names) == size and (parent.get("status") or {}).get("nodes") == names and image == "mysql:8.0"
    return parent if ok and _true(parent, "Ready") else None


def _network(kube: Kube, _res: Resource, parent: Obj, namespace: str) -> Obj | None:
    """The network published where a network plugin reads it (the seed called Neutron instead)."""
    name, spec = parent["metadata"]["name"], parent["spec"]
    config = kube.get(kube.resource("v1", "ConfigMap"), f"{name}-network", namespace)
    ok = config is not None and config["data"].get("cidr") == spec["cidr"]
    return parent if ok and _true(parent, "Ready") else None


def _guestbook(kube: Kube, _res: Resource, parent: Obj, namespace: str) -> Obj | None:
    """The guestbook application: a Deployment and a Service for each of its three parts."""
    name = parent["metadata"]["name"]
    for part in ("frontend", "redis-leader", "redis-follower"):
        for api_version, kind in (("apps/v1", "Deployment"), ("v1", "Service")):
            if kube.get(kube.resource(api_version, kind), f"{name}-{part}", namespace) is None:
                return None
    return parent if _true(parent, "Ready") else None


def _playbook(_kube: Kube, _res: Resource, parent: Obj, _namespace: str) -> Obj | None:
    """Reconciled and kept: the seed's controller did nothing to a Playbook until progress 100."""
    return parent if _true(parent, "Ready") else None


SEEDS = (
    Seed("000", "deploywebservice", "operator.wujiuye.com/v1beta1", "DeployWebService",
         "deploywebservice-sample", _deploywebservice),
    Seed("001", "mysqlcluster", "database.example.com/v1alpha1", "MySQLCluster", "my-mysql", _mysqlcluster),
    Seed("002", "network", "samplecrd.k8s.io/v1", "Network", "example-network", _network),
    Seed("003", "guestbook", "webapp.my.domain/v1", "Guestbook", "guestbook-sample", _guestbook),
    Seed("004", "playbook", "ops.netease.com/v1", "Playbook", "playbook-sample", _playbook),
)  # fmt: skip


def report_progress(kube: Kube, res: Resource, name: str, namespace: str, progress: int) -> None:
    """What a Playbook's reader does: a merge patch of status.progress through the status subresource."""
    kube.request(
        "PATCH",
        res.path(namespace, name, "status"),
        {"status": {"progress": progress}},
        content_type="application/merge-patch+json",
    )
