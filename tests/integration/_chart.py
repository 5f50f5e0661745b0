"""A release of the chart as a test reads it back: the objects Helm installed, and the engine as
the chart's Deployment runs it (its flags, its ServiceAccount), to run here as a process.

No image of the engine exists on these machines: the chart's pod, if any, lands on the simulated
kwok node, and the engine proper runs as a process holding a token of the chart's ServiceAccount,
with the flags the chart gives the container, so that it has the chart's rights and no others.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from engine.core.model import kinds
from engine.runtime.cluster.kube import Kube
from engine.testing import service_account_token, token_kubeconfig
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually
from tests.integration._process import helm

# Flags the test process sets itself (engine.testing.process.run_command) or that name the image's paths.
_OWN_FLAGS = (
    "--templates",
    "--metrics-bind-address",
    "--health-probe-bind-address",
    "--metrics-secure",
    "--no-metrics-secure",
    "--metrics-cert-path",
    "--log-format",
)


@dataclass(frozen=True)
class Release:
    name: str
    namespace: str
    objects: list[dict[str, Any]]

    @classmethod
    def read(cls, kubeconfig: Path, name: str, namespace: str) -> Release:
        manifest = helm(kubeconfig, "get", "manifest", name, "--namespace", namespace)
        return cls(name, namespace, [d for d in yaml.load_all(manifest, Loader=yaml.CSafeLoader) if d])

    def one(self, kind: str, name: str | None = None) -> dict[str, Any]:
        (found,) = (d for d in self.objects if d["kind"] == kind and name in (None, d["metadata"]["name"]))
        return found

    @property
    def account(self) -> str:
        return str(self.one("ServiceAccount")["metadata"]["name"])

    def engine_args(self, pod: str = "") -> list[str]:
        """The engine container's flags, ``$(POD_NAMESPACE)`` and ``$(POD_NAME)`` filled in as the
        kubelet would, less those the test process sets itself."""
        (container,) = self.one("Deployment")["spec"]["template"]["spec"]["containers"]
        args = [
            str(arg).replace("$(POD_NAMESPACE)", self.namespace).replace("$(POD_NAME)", pod)
            for arg in container["args"]
        ]
        return [arg for arg in args if arg.partition("=")[0] not in _OWN_FLAGS]

    def engine_kubeconfig(self, kube: Kube, admin_kubeconfig: Path, path: Path) -> Path:
        """A kubeconfig holding a token of the chart's ServiceAccount."""
        return token_kubeconfig(
            admin_kubeconfig, service_account_token(kube, self.namespace, self.account), path
        )


def ready_example(kube: Kube, kind_dir: Path, namespace: str) -> dict[str, Any]:
    """The kind's one example, applied in ``namespace``, once its parent reads Ready."""
    (sample,) = manifests.read(manifests.yaml_files(kind_dir / kinds.EXAMPLES_DIR))
    manifests.apply_all(kube, [sample], namespace)
    parents = kube.resource(sample["apiVersion"], sample["kind"])
    ready: dict[str, Any] = eventually(
        condition_is(kube, parents, sample["metadata"]["name"], namespace, "Ready", "True"),
        what=f"{sample['kind']} {namespace}/{sample['metadata']['name']} to become Ready",
    )
    return ready
