"""The chart as ``helm template`` renders it, for the chart's unit tests: the real helm binary
(found, or built once, by engine.localcluster.binaries), no cluster."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import Any

import yaml

from engine.localcluster import binaries

CHART = Path(__file__).resolve().parents[2] / "charts" / "stencil"
NAMESPACE = "stencil-system"
RELEASE = "rel"
FULLNAME = "rel-stencil"  # the objects' name for the release "rel"


@functools.cache
def helm() -> Path:
    return binaries.ensure(["helm"])["helm"]


def template(*settings: str) -> subprocess.CompletedProcess[str]:
    """``helm template rel charts/stencil --namespace stencil-system --set <setting>...``."""
    args = [str(helm()), "template", RELEASE, str(CHART), "--namespace", NAMESPACE]
    for setting in settings:
        args += ["--set", setting]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def render(*settings: str) -> list[dict[str, Any]]:
    result = template(*settings)
    assert result.returncode == 0, result.stderr
    return [d for d in yaml.load_all(result.stdout, Loader=yaml.CSafeLoader) if d]


def of_kind(documents: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    """The documents of ``kind`` by ``namespace/name`` (``name`` alone when cluster-scoped)."""
    found = {}
    for d in documents:
        if d["kind"] == kind:
            meta = d["metadata"]
            found["/".join(filter(None, (meta.get("namespace"), meta["name"])))] = d
    return found


def pod(documents: list[dict[str, Any]]) -> dict[str, Any]:
    (deployment,) = of_kind(documents, "Deployment").values()
    spec: dict[str, Any] = deployment["spec"]["template"]["spec"]
    return spec


def flags(args: list[str], name: str) -> list[str]:
    """Every value of ``--name=value`` in ``args``; "" for a bare ``--name``."""
    return [arg.partition("=")[2] for arg in args if arg == name or arg.startswith(name + "=")]


def grants(rules: list[dict[str, Any]]) -> set[tuple[str, str, tuple[str, ...], str]]:
    """What rules grant, one (group, resource, names, verb) each: the chart concatenates each
    kind's rules where ``stencil rbac`` merges them."""
    return {
        (group, resource, tuple(rule.get("resourceNames", ())), verb)
        for rule in rules
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def aggregated(documents: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    """The rules the ClusterRole ``name`` grants: its own or, for an aggregated role, those
    kube-controller-manager fills in, of every rendered ClusterRole its ``aggregationRule`` selects."""
    roles = of_kind(documents, "ClusterRole")
    if "aggregationRule" not in roles[name]:
        return list(roles[name]["rules"])
    selectors = [s["matchLabels"] for s in roles[name]["aggregationRule"]["clusterRoleSelectors"]]
    return [
        rule
        for role in roles.values()
        if any(selects(selector, role) for selector in selectors)
        for rule in role.get("rules") or []
    ]


def selects(match_labels: dict[str, str], role: dict[str, Any]) -> bool:
    """Whether a ``matchLabels`` selector selects ``role`` (every label it names, with its value)."""
    return match_labels.items() <= (role["metadata"].get("labels") or {}).items()
