"""A value of the wrong type is refused; int-or-string, quantity and null are read as the server does."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.offline import childschemas
from tests.unit._schema_children import container, deployment, errors_at, service

CONTAINER = ("spec", "template", "spec", "containers", 0)


def test_a_quoted_replica_count_is_refused_and_the_value_is_quoted() -> None:
    child = deployment()
    child["spec"]["replicas"] = "3"

    problems = childschemas.check(child)

    assert errors_at(problems) == {("spec", "replicas")}
    assert "integer" in problems[0].message
    assert "'3'" in problems[0].message


@pytest.mark.parametrize(
    "resources",
    [
        {"limits": {"cpu": "500m", "memory": "128Mi"}},
        {"limits": {"cpu": 0.5, "memory": 134217728}},
        {"requests": {"cpu": "1e3", "memory": "1.5Gi"}},
    ],
)
def test_quantities_are_numbers_or_quantity_strings(resources: dict[str, Any]) -> None:
    assert childschemas.check(deployment(containers=[container(resources=resources)])) == []


@pytest.mark.parametrize("memory", ["12 Gi", "lots", "1.5GB", True])
def test_a_malformed_quantity_is_refused(memory: object) -> None:
    child = deployment(containers=[container(resources={"limits": {"memory": memory}})])

    assert errors_at(childschemas.check(child)) == {(*CONTAINER, "resources", "limits", "memory")}


@pytest.mark.parametrize("target_port", [8080, "http"])
def test_int_or_string_takes_either(target_port: object) -> None:
    child = service()
    child["spec"]["ports"][0]["targetPort"] = target_port

    assert childschemas.check(child) == []


def test_int_or_string_takes_nothing_else() -> None:
    child = service()
    child["spec"]["ports"][0]["targetPort"] = [8080]

    assert errors_at(childschemas.check(child)) == {("spec", "ports", 0, "targetPort")}


def test_an_int32_field_refuses_a_number_that_does_not_fit() -> None:
    child = deployment(containers=[container(ports=[{"containerPort": 2**31}])])

    assert errors_at(childschemas.check(child)) == {(*CONTAINER, "ports", 0, "containerPort")}


def test_a_value_outside_an_enum_is_refused() -> None:
    child = deployment(containers=[container(ports=[{"containerPort": 80, "protocol": "HTTP"}])])

    problems = childschemas.check(child)

    assert errors_at(problems) == {(*CONTAINER, "ports", 0, "protocol")}
    assert "TCP" in problems[0].message


def test_null_reads_as_not_set() -> None:
    child = deployment(containers=[container(command=None, ports=None)])

    assert childschemas.check(child) == []


def test_secret_data_must_be_base64() -> None:
    secret = {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "s"},
        "data": {"good": "aGk=", "bad": "hi!"},
    }

    assert errors_at(childschemas.check(secret)) == {("data", "bad")}
