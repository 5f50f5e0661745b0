"""`stencil render --status` prints the status a kind's rules derive for each CR, offline.

By default every rendered child is observed healthy, so a kind whose rules are
right shows Ready; with --observed the children are read as a cluster prints
them, and the status follows what they say.  --now fixes every timestamp.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result

from engine.core.decisions import conditions, health
from engine.tools import cli

ROOT = Path(__file__).resolve().parents[3]
FOLDER = ROOT / "templates" / "deploywebservice"
SAMPLE = FOLDER / "examples" / "deploywebservice-sample.yaml"
NOW = "2026-01-02T03:04:05Z"


def stencil(*args: str | Path) -> Result:
    return CliRunner().invoke(cli.main, ["render", str(FOLDER), "-f", str(SAMPLE), *map(str, args)])


def rendered() -> list[dict[str, Any]]:
    result = stencil()
    assert result.exit_code == 0, result.output
    return list(yaml.safe_load_all(result.stdout))


def status_of(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, result.output
    (parent,) = yaml.safe_load_all(result.stdout)
    sample = yaml.safe_load(SAMPLE.read_text())
    assert (parent["kind"], parent["metadata"]["name"]) == (sample["kind"], sample["metadata"]["name"])
    status: dict[str, Any] = parent["status"]
    return status


def condition(status: dict[str, Any], type: str) -> dict[str, Any]:
    found = conditions.find_in(status["conditions"], type)
    assert found is not None, f"no {type} condition in {status['conditions']}"
    return found


def test_with_healthy_children_every_condition_holds_and_ready_follows() -> None:
    status = status_of(stencil("--status", "--now", NOW))
    assert {c["type"]: c["status"] for c in status["conditions"]} == {
        c["type"]: "True" for c in status["conditions"]
    }
    assert condition(status, "ChildrenReady")["message"] == f"{len(rendered())} children ready"
    assert {c["lastTransitionTime"] for c in status["conditions"]} == {NOW}


def test_a_field_reads_what_the_healthy_children_were_given() -> None:
    status = status_of(stencil("--status", "--now", NOW))
    assert status["nodePort"] in range(30000, 32768)
    assert str(status["nodePort"]) in condition(status, "ServiceAvailable")["message"]


def test_the_same_inputs_print_the_same_status() -> None:
    assert stencil("--status", "--now", NOW).stdout == stencil("--status", "--now", NOW).stdout


def observed_file(tmp_path: Path, *, deployment_ready: bool, node_port: int) -> Path:
    """The rendered children as `kubectl get -o yaml` prints several: a List, with statuses."""
    deployment, service = rendered()
    replicas = deployment["spec"]["replicas"]
    deployment["metadata"]["generation"] = 1
    deployment["status"] = {
        "observedGeneration": 1,
        "replicas": replicas,
        "updatedReplicas": replicas,
        "readyReplicas": replicas if deployment_ready else 0,
        "availableReplicas": replicas if deployment_ready else 0,
        "conditions": [
            {"type": "Available", "status": str(deployment_ready), "reason": "Because"},
            {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"},
        ],
    }
    service["spec"]["ports"][0]["nodePort"] = node_port
    path = tmp_path / "observed.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [deployment, service]}))
    return path


def test_observed_children_decide_the_conditions_and_fields(tmp_path: Path) -> None:
    observed = observed_file(tmp_path, deployment_ready=False, node_port=31234)
    status = status_of(stencil("--status", "--observed", observed, "--now", NOW))
    assert status["nodePort"] == 31234
    assert condition(status, "DeploymentAvailable")["status"] == "False"
    assert condition(status, "ChildrenReady")["status"] == "False"
    assert condition(status, "Ready")["status"] == "False"
    deployment = yaml.safe_load(observed.read_text())["items"][0]
    assert health.assess(deployment, now=NOW).message in condition(status, "ChildrenReady")["message"]


def test_observed_children_that_are_healthy_make_the_parent_ready(tmp_path: Path) -> None:
    observed = observed_file(tmp_path, deployment_ready=True, node_port=31234)
    status = status_of(stencil("--status", "--observed", observed, "--now", NOW))
    assert condition(status, "Ready")["status"] == "True"


def test_a_child_missing_from_the_observed_file_is_not_created_yet(tmp_path: Path) -> None:
    deployment, _ = rendered()
    path = tmp_path / "observed.yaml"
    path.write_text(yaml.safe_dump(deployment))
    status = status_of(stencil("--status", "--observed", path, "--now", NOW))
    ready = condition(status, "ChildrenReady")
    assert ready["status"] == "False"
    assert "not created yet" in ready["message"]


def test_a_now_that_is_not_an_rfc3339_time_is_refused() -> None:
    result = stencil("--status", "--now", "yesterday")
    assert result.exit_code == 2
    assert "'yesterday' is not an RFC 3339 time" in result.output
