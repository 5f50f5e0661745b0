"""The real API server serves each seed kind's CRD, written from its kind.yaml ``schema:``, as it
served the CRD Stencil shipped for it by hand (``tests/shipped_crds/``): a user of the shipped CRD
switches without touching a CR.

The shipped CRD is served beside the written one under a group of its own (``hand.<group>``, the
one change made to it), so that both answer the same requests at once. Each object of the corpus
(``tests._crd_corpus``: the kind's examples and variations of each field that both schemas call
for) is created in both with a dry run and strict field validation, and the answers compare: the
same status code, reason and causes, or the same object kept, defaults and all. Statuses are
written in both through the status subresource the same way. The served CRDs have the same names,
scope, versions, subresources and printer columns, and ``kubectl get`` shows the same table of the
kind's examples. ``tests/unit/core/offline/test_each_seed_schema_writes_the_crd_that_was_shipped_by_hand.py``
holds the two CRDs to each other offline.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from engine.core.model import errors
from engine.runtime.cluster.kube import Kube
from engine.tools import manifests
from tests import _crd_corpus
from tests.unit.core.offline.test_each_seed_schema_writes_the_crd_that_was_shipped_by_hand import (
    SEEDS,
    corpus,
    generated,
    samples,
    shipped,
)

CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
DRY_RUN = {"dryRun": "All", "fieldValidation": "Strict"}
_QUOTED_OBJECT = re.compile(r'Invalid value: \\+"\{.*?\}\\+": strict decoding error')


def _group(crd: dict[str, Any]) -> str:
    group: str = crd["spec"]["group"]
    return group


def _beside(crd: dict[str, Any]) -> dict[str, Any]:
    """``crd`` under the group ``hand.<group>``, so it is served beside the one of ``<group>``."""
    moved = copy.deepcopy(crd)
    moved["spec"]["group"] = f"hand.{_group(crd)}"
    moved["metadata"]["name"] = f"{crd['spec']['names']['plural']}.hand.{_group(crd)}"
    return moved


@pytest.fixture(scope="module")
def shipped_beside(local_cluster: Any, crds_installed: list[str], tmp_path_factory: Any) -> Iterator[None]:
    """The shipped CRDs served under their ``hand.`` groups for this module, then removed."""
    folder = tmp_path_factory.mktemp("shipped")
    for seed in SEEDS:
        (folder / f"{seed}.yaml").write_text(json.dumps(_beside(shipped(seed))))
    with contextlib.closing(Kube.from_kubeconfig(str(local_cluster.kubeconfig))) as kube:
        names = manifests.install_crds(kube, folder)
        yield
        for name in names:
            kube.request("DELETE", f"{CRDS}/{name}")


def _path(crd: dict[str, Any], group: str, namespace: str, *rest: str) -> str:
    version, plural = crd["spec"]["versions"][0]["name"], crd["spec"]["names"]["plural"]
    return "/".join([f"/apis/{group}/{version}/namespaces/{namespace}/{plural}", *rest])


def _in_group(obj: dict[str, Any], group: str) -> dict[str, Any]:
    version = obj["apiVersion"].rpartition("/")[2]
    return {**obj, "apiVersion": f"{group}/{version}"}


def _answer(kube: Kube, group: str, method: str, path: str, body: Any, **options: Any) -> Any:
    """What the server answers a dry run of ``method path``: the object it would keep, or its
    refusal, with the ``hand.`` of ``group`` and what differs from one object to the next (uid,
    times, versions) left out."""
    try:
        kept = kube.request(method, path, body, query=DRY_RUN, **options)
    except errors.ApiError as refused:
        body = refused.body
        causes = sorted(
            json.dumps(c, sort_keys=True) for c in (body.get("details") or {}).get("causes") or []
        )
        answer: Any = (refused.status, body.get("reason"), causes or body.get("message"))
    else:
        metadata = {k: v for k, v in kept["metadata"].items() if k in ("name", "namespace", "labels")}
        answer = {**kept, "apiVersion": kept["apiVersion"].rpartition("/")[2], "metadata": metadata}
    # A refused patch quotes the whole object, uid and times too, before saying what is wrong in it.
    text = _QUOTED_OBJECT.sub("Invalid value: (the object): strict decoding error", json.dumps(answer))
    return json.loads(text.replace(f"hand.{group}", group))


@pytest.mark.parametrize("seed", SEEDS)
def test_the_served_crds_have_the_same_names_scope_versions_and_columns(
    seed: str, kube: Kube, shipped_beside: None
) -> None:
    crd = generated(seed)
    served = [
        kube.request("GET", f"{CRDS}/{name}")
        for name in (crd["metadata"]["name"], _beside(shipped(seed))["metadata"]["name"])
    ]
    said = []
    for found in served:
        spec = {k: v for k, v in found["spec"].items() if k != "group"}
        for version in spec["versions"]:
            for column in version.get("additionalPrinterColumns", []):
                column.pop("description", None)
        # Another test of the shared plane may have applied the CRD with kubectl, which keeps what
        # it applied in an annotation of its own; that is the client's record, not the CRD's.
        annotations = {
            k: v
            for k, v in (found["metadata"].get("annotations") or {}).items()
            if k != "kubectl.kubernetes.io/last-applied-configuration"
        }
        said.append((spec, annotations, found["status"]["acceptedNames"]))
    assert said[0] == said[1]


@pytest.mark.parametrize("seed", SEEDS)
def test_each_cr_of_the_corpus_is_taken_or_refused_alike(
    seed: str, kube: Kube, namespace: str, shipped_beside: None
) -> None:
    crd, group = generated(seed), _group(generated(seed))
    differing, refused = [], 0
    for label, obj in corpus(seed):
        answers = [
            _answer(kube, group, "POST", _path(crd, g, namespace), _in_group(obj, g))
            for g in (group, f"hand.{group}")
        ]
        refused += not isinstance(answers[0], dict)
        if answers[0] != answers[1]:
            differing.append((label, *answers))
    assert differing == []
    assert 0 < refused < len(corpus(seed))


@pytest.mark.parametrize("seed", SEEDS)
def test_each_status_of_the_corpus_is_written_or_refused_alike(
    seed: str, kube: Kube, namespace: str, shipped_beside: None
) -> None:
    crd, group = generated(seed), _group(generated(seed))
    sample = samples(seed)[0]
    for g in (group, f"hand.{group}"):
        kube.request("POST", _path(crd, g, namespace), _in_group(sample, g))
    statuses = {
        json.dumps(status, sort_keys=True): (label, status)
        for label, status in [*_crd_corpus.statuses(shipped(seed)), *_crd_corpus.statuses(crd)]
    }
    differing = []
    for label, status in statuses.values():
        answers = [
            _answer(
                kube,
                group,
                "PATCH",
                _path(crd, g, namespace, sample["metadata"]["name"], "status"),
                {"status": status},
                content_type="application/merge-patch+json",
            )
            for g in (group, f"hand.{group}")
        ]
        if answers[0] != answers[1]:
            differing.append((label, *answers))
    assert differing == []


@pytest.mark.parametrize("seed", SEEDS)
def test_kubectl_get_shows_the_same_table(
    seed: str, kube: Kube, namespace: str, shipped_beside: None
) -> None:
    crd, group = generated(seed), _group(generated(seed))
    tables = []
    for g in (group, f"hand.{group}"):
        for sample in samples(seed):
            kube.request("POST", _path(crd, g, namespace), _in_group(sample, g))
        table = kube.request("GET", _path(crd, g, namespace), query={"includeObject": "None"}, accept=TABLE)
        columns = [
            {k: c[k] for k in ("name", "type", "format", "priority")} for c in table["columnDefinitions"]
        ]
        age = next(i for i, c in enumerate(columns) if c["name"] == "Age")
        rows = [[cell for i, cell in enumerate(row["cells"]) if i != age] for row in table["rows"]]
        tables.append((columns, rows))
    assert tables[0] == tables[1]
    assert tables[0][1], "the table shows the examples"
