"""Two entries with the same keys in a list of unique entries are refused, as server-side apply does."""

from __future__ import annotations

from engine.core.offline import childschemas
from tests.unit._schema_children import container, deployment, errors_at

POD = ("spec", "template", "spec")


def test_two_containers_of_one_name_are_refused_at_the_second() -> None:
    child = deployment(containers=[container(), container(image="busybox")])

    problems = childschemas.check(child)

    assert errors_at(problems) == {(*POD, "containers", 1)}
    assert "'web'" in problems[0].message


def test_containers_of_different_names_are_accepted() -> None:
    child = deployment(containers=[container(), container(name="sidecar")])

    assert childschemas.check(child) == []


def test_a_set_with_an_item_twice_is_refused() -> None:
    pod = {"spec": {"restartPolicy": "Never", "containers": [container()]}}
    rule = {"action": "FailJob", "onExitCodes": {"operator": "In", "values": [3, 3]}}
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": "run"},
        "spec": {"template": pod, "podFailurePolicy": {"rules": [rule]}},
    }

    problems = childschemas.check(job)

    assert errors_at(problems) == {("spec", "podFailurePolicy", "rules", 0, "onExitCodes", "values", 1)}
