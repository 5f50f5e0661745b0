"""Child names follow the rule the API server applies to their kind ("Object Names and IDs")."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.offline import childschemas
from tests.unit._schema_children import (
    configmap,
    cronjob,
    errors_at,
    job,
    metadata,
    namespace_object,
    service,
    statefulset,
)

NAME = ("metadata", "name")


def named(child: dict[str, Any], name: str) -> dict[str, Any]:
    return {**child, "metadata": {**child["metadata"], "name": name}}


def role(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": metadata(name),
        "rules": [],
    }


def indexed_job(name: str, completions: int) -> dict[str, Any]:
    return job(name, completionMode="Indexed", completions=completions)


ACCEPTED = [
    pytest.param(named(configmap(), "shop.config-1"), id="a subdomain may have dots"),
    pytest.param(named(configmap(), "a" * 253), id="a subdomain of 253"),
    pytest.param(named(service(), "shop-1"), id="a service named as a DNS label"),
    pytest.param(namespace_object("9-lives"), id="a namespace may start with a digit"),
    pytest.param(role("system:shop:reader"), id="an RBAC name is a path segment"),
    pytest.param(job("j" * 63), id="a job of 63"),
    pytest.param(job("shop.migrate"), id="a job name may have dots"),
    pytest.param(indexed_job("j" * 61, 10), id="an indexed job whose last pod is named with 63"),
    pytest.param(cronjob("c" * 52), id="a cronjob of 52"),
    pytest.param(named(service(), "s" * 63), id="a service of 63"),
    pytest.param(namespace_object("n" * 63), id="a namespace of 63"),
    pytest.param(statefulset("d" * 61), id="a statefulset of 61"),
]
REFUSED = [
    pytest.param(named(configmap(), "Shop"), id="no capitals"),
    pytest.param(named(configmap(), "shop_config"), id="no underscores"),
    pytest.param(named(configmap(), "shop-"), id="no dash at the end"),
    pytest.param(named(configmap(), "a" * 254), id="a subdomain of 254"),
    pytest.param(named(service(), "shop.web"), id="a service name has no dots"),
    pytest.param(named(service(), "1shop"), id="a service name starts with a letter"),
    pytest.param(named(service(), "s" * 64), id="a service name of 64"),
    pytest.param(namespace_object("team.a"), id="a namespace name is a DNS label"),
    pytest.param(role("shop/reader"), id="an RBAC name has no slash"),
    pytest.param(job("j" * 64), id="a job name becomes its pods' label value"),
    pytest.param(indexed_job("j" * 61, 11), id="an indexed job whose last pod is named with 64"),
    pytest.param(indexed_job("shop.migrate", 1), id="an indexed job's pods' hostnames have no dots"),
    pytest.param(cronjob("c" * 53), id="a cronjob name becomes its jobs' with 11 more"),
    pytest.param(namespace_object("n" * 64), id="a namespace name of 64"),
    pytest.param(statefulset("db.main"), id="a statefulset name is a DNS label"),
    pytest.param(statefulset("d" * 64), id="a statefulset name of 64"),
]


@pytest.mark.parametrize("child", ACCEPTED)
def test_a_name_the_server_accepts_has_no_problem(child: dict[str, Any]) -> None:
    assert childschemas.check(child) == []


@pytest.mark.parametrize("child", REFUSED)
def test_a_name_the_server_refuses_is_an_error_quoting_it(child: dict[str, Any]) -> None:
    problems = childschemas.check(child)

    assert errors_at(problems) == {NAME}
    assert all(child["metadata"]["name"][:20] in problem.message for problem in problems)


def test_a_statefulset_whose_pod_names_overflow_a_label_is_a_warning() -> None:
    # Pods are named <name>-<ordinal>: the tenth is d...d-9 (63 characters), the eleventh d...d-10 (64).
    assert childschemas.check(statefulset("d" * 61, 10)) == []
    assert [(p.path, p.severity) for p in childschemas.check(statefulset("d" * 61, 11))] == [
        (NAME, "warning")
    ]
