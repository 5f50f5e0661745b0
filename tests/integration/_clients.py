"""What the clients people run say of live parents, in those clients' own code.

``tests/health`` is a Go program built against kstatus (``sigs.k8s.io/cli-utils``, what Flux, kpt
and Helm 4's ``--wait=watcher`` wait with) and Argo CD's health (gitops-engine with Argo CD's own
Lua VM); its doc comment says which versions and why.  It is built once into the
binaries' cache like the benchmark's Go floor, by the digest of its files.  ``read`` hands it
objects the test has just read from the API server and returns what each client says;
``argo_cd_health_lua`` is the check that ``stencil argocd-health`` prints for Argo CD's
``resource.customizations``, so Argo CD is judged with the Lua users would install.

``helm_install_waiting`` installs, with the plane's Helm (Helm 4, whose watcher waits with
kstatus), a chart the test writes with ``write_chart``.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from engine.localcluster import binaries
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools.cli import main
from tests.integration import _process
from tests.integration._engine import ROOT, condition_is, conditions, eventually

PROGRAM = ROOT / "tests" / "health"
HEALTH_KEY = "resource.customizations.health."  # Argo CD's key per kind: ...health.<group>_<Kind>


@dataclass(frozen=True)
class Reading:
    """What kstatus and Argo CD say of one object at one moment."""

    kstatus: str
    kstatus_message: str
    health: str | None  # None: Argo CD knows no health for the object
    health_message: str


def program() -> Path:
    return binaries.ensure_module("health", PROGRAM)


def read(objects: Sequence[Mapping[str, Any]], lua: Mapping[str, str] | None = None) -> list[Reading]:
    """Each object as kstatus and Argo CD read it, with ``lua`` ({"group/Kind": script}) as
    Argo CD's health checks."""
    with tempfile.TemporaryDirectory(prefix="stencil-health-") as folder:
        args = [str(program())]
        for i, (key, script) in enumerate((lua or {}).items()):
            path = Path(folder) / f"{i}.lua"
            path.write_text(script)
            args += ["-lua", f"{key}={path}"]
        done = subprocess.run(
            args, input=json.dumps(list(objects)), capture_output=True, text=True, timeout=60
        )
    assert done.returncode == 0, f"{PROGRAM.name} failed:\n{done.stderr}"
    readings = []
    for line in done.stdout.splitlines():
        found = json.loads(line)
        health = found["health"] or {}
        readings.append(
            Reading(found["kstatus"]["status"], found["kstatus"]["message"], health.get("status"),
                    health.get("message", ""))
        )  # fmt: skip
    return readings


def group_kind(api_version: str, kind: str) -> str:
    """The key Argo CD files a kind's customizations under: ``group/Kind`` (``Kind`` alone for core)."""
    group = api_version.rpartition("/")[0]
    return f"{group}/{kind}" if group else kind


def argo_cd_health_lua(templates: Path, api_version: str, kind: str) -> str:
    """The Lua that ``stencil argocd-health`` prints for the kind, among the kinds under
    ``templates``, under Argo CD's argocd-cm key for it."""
    args = ["argocd-health", "--templates", str(templates)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, f"stencil {' '.join(args)} failed:\n{result.output}"
    key = HEALTH_KEY + group_kind(api_version, kind).replace("/", "_")
    script = (yaml.safe_load(result.output) or {}).get(key)
    assert isinstance(script, str), f"stencil {' '.join(args)} printed no {key}:\n{result.output}"
    return script


def eventually_kstatus(
    kube: Kube, res: Resource, name: str, namespace: str, want: str, timeout: float = 120.0
) -> dict[str, Any]:
    """The live parent once kstatus reads it as ``want``; on timeout the failure quotes the
    last reading and the parent's conditions."""
    last: list[Any] = []

    def probe() -> dict[str, Any] | None:
        parent = kube.get(res, name, namespace)
        if parent is None:
            return None
        (reading,) = read([parent])
        last[:] = [reading, conditions(parent)]
        return parent if reading.kstatus == want else None

    try:
        return eventually(probe, timeout=timeout, what=f"kstatus reading {name} as {want}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}\nlast reading: {last}") from exc


def argo_cd_reads(templates: Path, parent: Mapping[str, Any]) -> Reading:
    """The parent as Argo CD reads it with the health check ``stencil`` prints for its kind."""
    api_version, kind = parent["apiVersion"], parent["kind"]
    lua = argo_cd_health_lua(templates, api_version, kind)
    (reading,) = read([parent], {group_kind(api_version, kind): lua})
    return reading


def shipped_kind(templates: Path, folder: str = "deploywebservice") -> Path:
    """A shipped kind's folder copied under ``templates`` (without its examples and tests), for
    the engine to run and a test to edit."""
    copy = templates / folder
    shutil.copytree(ROOT / "templates" / folder, copy, ignore=shutil.ignore_patterns("examples", "tests"))
    return copy


def create_ready(kube: Kube, res: Resource, parent: dict[str, Any]) -> None:
    """Create the parent and wait for its Ready, written by the engine."""
    kube.create(parent)
    name, namespace = parent["metadata"]["name"], parent["metadata"]["namespace"]
    eventually(condition_is(kube, res, name, namespace, "Ready", "True"), timeout=120, what=f"{name} Ready")


def make_unrenderable(kind: Path) -> None:
    """Make the DeployWebService kind's Deployment read a field no parent has, so it renders for none."""
    path = kind / "deployment.yaml"
    text = path.read_text()
    assert "  selector:" in text, path
    path.write_text(text.replace("  selector:", "  minReadySeconds: {{ spec.zone.delay }}\n  selector:", 1))


def web_service(name: str, namespace: str, image: str = "nginx:1.27") -> dict[str, Any]:
    """A DeployWebService of one pod."""
    return {
        "apiVersion": "operator.wujiuye.com/v1beta1",
        "kind": "DeployWebService",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"image": image, "replicas": 1, "exposed_port": 8080},
    }


def write_chart(folder: Path, objects: Sequence[Mapping[str, Any]]) -> Path:
    """A chart of the test's own holding ``objects`` as they are, one template each."""
    folder.mkdir(parents=True)
    chart = {"apiVersion": "v2", "name": folder.name, "version": "0.1.0"}
    (folder / "Chart.yaml").write_text(yaml.safe_dump(chart))
    (folder / "templates").mkdir()
    for i, obj in enumerate(objects):
        (folder / "templates" / f"{i}.yaml").write_text(yaml.safe_dump(dict(obj)))
    return folder


@dataclass(frozen=True)
class Install:
    returncode: int
    output: str
    seconds: float


@contextlib.contextmanager
def helm_install_waiting(
    kubeconfig: Path, release: str, chart: Path, namespace: str, timeout: int
) -> Iterator[Install]:
    """``helm install --wait=watcher --timeout <timeout>s``, timed, its exit status the caller's
    to judge; uninstalled afterwards, whatever the install did."""
    found = binaries.find("helm")
    assert found is not None, "helm is not built: python -m engine.localcluster.binaries helm"
    args = [str(found), "--kubeconfig", str(kubeconfig), "install", release, str(chart)]
    args += ["--namespace", namespace, "--wait=watcher", f"--timeout={timeout}s"]
    started = time.monotonic()
    done = subprocess.run(args, capture_output=True, text=True, timeout=timeout + 60)
    try:
        yield Install(done.returncode, done.stdout + done.stderr, time.monotonic() - started)
    finally:
        _process.helm(kubeconfig, "uninstall", release, "--namespace", namespace, "--wait")
