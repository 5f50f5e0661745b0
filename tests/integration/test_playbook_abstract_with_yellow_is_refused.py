"""Playbook (seed 004): the CRD refuses an abstract containing "yellow" on create and on update,
as the seed's validating webhook did, with no webhook server and no certificate."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT

EXAMPLES = ROOT / "templates" / "playbook" / "examples"


@pytest.fixture
def playbooks(kube: Kube, crds_installed: list[str]) -> Resource:
    return kube.resource("ops.netease.com/v1", "Playbook")


def sample(**spec: Any) -> dict[str, Any]:
    """The kind's sample Playbook, with ``spec`` fields overridden."""
    doc = manifests.read(manifests.yaml_files(EXAMPLES))[0]
    return {**doc, "spec": {**doc["spec"], **spec}}


def refusal(call: Callable[[], Any]) -> errors.Invalid:
    with pytest.raises(errors.Invalid) as refused:
        call()
    return refused.value


def test_an_abstract_containing_yellow_is_refused_on_create(
    kube: Kube, namespace: str, playbooks: Resource
) -> None:
    yellow = sample(abstract="a yellow book")

    refused = refusal(lambda: kube.request("POST", playbooks.path(namespace), yellow))

    assert refused.status == 422
    causes = refused.body["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.abstract"]
    assert 'must not contain the word "yellow"' in causes[0]["message"]
    assert kube.get(playbooks, yellow["metadata"]["name"], namespace) is None


def test_an_abstract_containing_yellow_is_refused_on_update(
    kube: Kube, namespace: str, playbooks: Resource
) -> None:
    created = kube.request("POST", playbooks.path(namespace), sample())
    name = created["metadata"]["name"]

    refused = refusal(
        lambda: kube.request(
            "PATCH",
            playbooks.path(namespace, name),
            {"spec": {"abstract": "now a yellow book"}},
            content_type="application/merge-patch+json",
        )
    )

    assert refused.status == 422
    assert [c["field"] for c in refused.body["details"]["causes"]] == ["spec.abstract"]
    kept = kube.get(playbooks, name, namespace)
    assert kept is not None
    assert kept["spec"] == created["spec"]
    assert kept["metadata"]["generation"] == created["metadata"]["generation"]
