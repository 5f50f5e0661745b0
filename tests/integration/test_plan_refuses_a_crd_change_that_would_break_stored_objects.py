"""``stencil plan`` on the real control plane refuses a kind folder whose CRD would break what is
stored: with a Gadget stored under the installed CRD, a folder that removes ``spec.team`` and makes
``spec.size`` an integer is refused naming both fields (exit 4), while the unchanged folder passes.
The server then shows the refusal is real: once the new CRD is applied, the stored Gadget reads
without its team, and a new size that is not an integer is refused (one left as stored passes)."""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from engine.core.model import errors, kinds
from engine.runtime.cluster.kube import Kube
from engine.tools import apicheck, manifests
from engine.tools.cli import main
from tests._deadlines import eventually

KIND_YAML = """\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: {group}/v1
  kind: Gadget
schema:
  spec:
    color: string | required=true
    size: {size}
{team}templates: [configmap.yaml]
"""
TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-gadget
data:
  color: {{ spec.color }}
"""
TEAM = "    team: string\n"


def folder(root: Path, group: str, *, size: str = "string", team: str = TEAM) -> Path:
    """A Gadget kind folder; the default is the one installed, the arguments change it."""
    found = root / "gadget"
    found.mkdir(parents=True, exist_ok=True)
    (found / "kind.yaml").write_text(KIND_YAML.format(group=group, size=size, team=team))
    (found / "configmap.yaml").write_text(TEMPLATE)
    return found


@pytest.fixture
def group(kube: Kube) -> Iterator[str]:
    """A group of the test's own, so its CRD is no other test's; the CRD deleted after it."""
    name = f"b{uuid.uuid4().hex[:8]}.tests.stencil.dev"
    yield name
    with contextlib.suppress(errors.NotFound):
        kube.request("DELETE", f"{apicheck.CRDS_PATH}gadgets.{name}")


def plan(local_cluster: Any, namespace: str, kind_dir: Path) -> tuple[int, dict[str, Any]]:
    args = ["plan", str(kind_dir), "-n", namespace, "--kubeconfig", str(local_cluster.kubeconfig)]
    result = CliRunner().invoke(main, [*args, "--format", "json", "--sample", "0"])
    return result.exit_code, json.loads(result.stdout)


def test_plan_refuses_a_crd_change_that_would_break_stored_objects(
    kube: Kube, namespace: str, local_cluster: Any, group: str, tmp_path: Path
) -> None:
    installed = folder(tmp_path / "installed", group)
    manifests.install_crds(kube, None, kinds_=[kinds.load_kind(installed)])
    gadgets = f"/apis/{group}/v1/namespaces/{namespace}/gadgets"
    spec = {"color": "red", "size": "10", "team": "blue"}
    body = {"apiVersion": f"{group}/v1", "kind": "Gadget", "metadata": {"name": "g"}, "spec": spec}
    kube.request("POST", gadgets, body)

    code, unchanged = plan(local_cluster, namespace, installed)
    assert code == 0, unchanged
    assert unchanged["api"]["findings"] == [] and unchanged["parents"]["total"] == 1

    changed = folder(tmp_path / "changed", group, size="integer", team="")
    code, summary = plan(local_cluster, namespace, changed)

    assert code == 4, summary
    api = summary["api"]
    assert (api["crd"], api["against"], api["refused"]) == (f"gadgets.{group}", "the installed CRD", 2)
    found = {(f["severity"], f["version"], f["path"]): f["what"] for f in api["findings"]}
    assert set(found) == {("refused", "v1", "spec.team"), ("refused", "v1", "spec.size")}
    assert found[("refused", "v1", "spec.team")].startswith("removed: the API server prunes it")
    assert found[("refused", "v1", "spec.size")].startswith("type string -> integer")
    assert summary["parents"]["total"] == 1  # the parents are still planned

    # What the refusals said, the server does once the new CRD is in: the team is gone from the
    # stored Gadget as it reads, and its stored size can no longer be written.
    manifests.install_crds(kube, None, kinds_=[kinds.load_kind(changed)])
    read = eventually(
        lambda: (got := kube.request("GET", f"{gadgets}/g")) and "team" not in got["spec"] and got,
        what="the stored Gadget read without its pruned team",
    )
    assert read["spec"] == {"color": "red", "size": "10"}
    with pytest.raises(errors.Invalid) as refused:
        kube.request("PUT", f"{gadgets}/g", {**read, "spec": {**read["spec"], "size": "11"}})
    assert "spec.size" in refused.value.message and "integer" in refused.value.message
    # A write that leaves the stored string as it is passes (the server ratchets it), as the finding
    # says: only a new value must be an integer.
    kept = kube.request("PUT", f"{gadgets}/g", {**read, "spec": {**read["spec"], "color": "green"}})
    assert kept["spec"] == {"color": "green", "size": "10"}
