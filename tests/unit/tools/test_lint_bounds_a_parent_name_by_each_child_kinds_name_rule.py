"""A child named from its parent overflows where its own kind's name rule says, not at 253: lint warns at
the template line of ``metadata.name``, quotes the kind's limit and its reason, and gives the bound on the
parent's name that keeps the child within it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.tools import linter
from tests.unit._lintkinds import kind_folder, line_of

POD = "      restartPolicy: Never\n      containers:\n      - name: run\n        image: busybox\n"
JOB = (
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: '{{ name }}-migrate'\nspec:\n"
    "  template:\n    spec:\n"
)
CRONJOB = (
    "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: '{{ name }}-backup'\nspec:\n"
    "  schedule: '0 3 * * *'\n  jobTemplate:\n    spec:\n      template:\n        spec:\n"
)
SERVICE = (
    "apiVersion: v1\nkind: Service\nmetadata:\n  name: '{{ name }}-web'\nspec:\n  ports:\n  - port: 80\n"
)
STATEFULSET = (
    "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: '{{ name }}-db'\nspec:\n  replicas: 1\n"
    "  serviceName: db\n  selector:\n    matchLabels: {app: db}\n  template:\n"
    "    metadata:\n      labels: {app: db}\n    spec:\n"
)
CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ name }}-settings'\ndata: {}\n"

CASES = [
    # template, what the warning says of the kind's names, the longest parent name that fits
    pytest.param(
        JOB + POD, "a Job's name is at most 63 characters: its pods carry it in a label", 55, id="Job"
    ),
    pytest.param(
        CRONJOB + "".join("    " + line + "\n" for line in POD.splitlines()),
        "a CronJob's name is at most 52 characters: its Jobs are named after it with an 11-character suffix",
        45,
        id="CronJob",
    ),
    pytest.param(SERVICE, "a Service's name is at most 63 characters: it is a DNS name", 59, id="Service"),
    pytest.param(
        STATEFULSET + POD.replace("      restartPolicy: Never\n", ""),
        "its pods' names (",  # <name>-0 overflows the pod-name label two letters before the name does
        58,
        id="StatefulSet",
    ),
    pytest.param(CONFIGMAP, "a name is at most 253 characters", 244, id="ConfigMap"),  # placement's own limit
]


def capped(folder: Path, longest: int) -> None:
    """Bound the parent's name in the Web CRD to ``longest`` characters."""
    crd_file = folder.parent.parent / "crds" / "web.yaml"
    crd = yaml.safe_load(crd_file.read_text())
    rule = {"rule": f"self.metadata.name.size() <= {longest}"}
    crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["x-kubernetes-validations"] = [rule]
    crd_file.write_text(yaml.safe_dump(crd))


@pytest.mark.parametrize(("template", "said", "bound"), CASES)
def test_lint_warns_at_the_kinds_own_limit_with_the_bound(
    tmp_path: Path, template: str, said: str, bound: int
) -> None:
    folder = kind_folder(tmp_path, {"child.yaml": template})

    findings = linter.lint([folder])

    assert [(f.file, f.line, f.severity) for f in findings] == [
        (str(folder / "child.yaml"), line_of(template, "  name: '{{ name }}"), "warning")
    ]
    assert said in findings[0].message
    assert f"named with {bound + 1} characters" in findings[0].message
    assert f"self.metadata.name.size() <= {bound})" in findings[0].message


@pytest.mark.parametrize(("template", "said", "bound"), CASES)
def test_lint_is_quiet_once_the_crd_holds_the_bound(
    tmp_path: Path, template: str, said: str, bound: int
) -> None:
    folder = kind_folder(tmp_path, {"child.yaml": template})
    capped(folder, bound)

    assert linter.lint([folder]) == []
