"""The checks between children take one parent's children at a time: a Service of one example is not
matched with the pods of another."""

from __future__ import annotations

from pathlib import Path

from engine.core.offline.linting.relations import RELATIONS
from engine.tools import linter
from tests.unit._lintkinds import EXAMPLE, kind_folder
from tests.unit._siblings import deployment, service

NAMED = "'{{ name }}'"


def test_a_service_is_not_matched_with_the_pods_of_another_example(tmp_path: Path) -> None:
    templates = {
        "deployment.yaml": deployment(selector=f"app: {NAMED}", labels=f"app: {NAMED}"),
        "service.yaml": service(selector="app: other"),
    }
    examples = {"small.yaml": EXAMPLE, "other.yaml": EXAMPLE.replace("name: small", "name: other")}
    folder = kind_folder(tmp_path, templates, examples=examples)

    findings = [f for f in linter.lint([folder]) if f.check == RELATIONS]

    assert [f.message for f in findings] == [
        "Service spec.selector: app=other matches no pod template the kind renders"
        " (Deployment small: app=small)"
    ]
