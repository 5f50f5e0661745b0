"""Each seed kind says its API in kind.yaml's ``schema:``, and keeps the API of the CRD Stencil
shipped for it by hand (``tests/shipped_crds/``), so that a user of that CRD switches without
touching a CR.

The CRD the schema writes is the shipped one field for field (the same validation, defaults, CEL
rules and their messages, descriptions, names, scope, subresources and versions), but for the
descriptions of its Ready and Reason columns, which kubectl never prints. And offline, where the
API server's checks are Stencil's own (``admission.OfflineCrds``), the two CRDs judge alike every
object of a corpus made from the kind's examples and from both schemas (``tests._crd_corpus``):
the same refusals, at the same fields and in the same words, and the same defaults on the objects
they accept. ``tests/integration/test_each_seed_schema_is_served_as_the_shipped_crd_was.py`` asks
the real API server the same questions."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.model import kinds
from engine.core.model.language import documents
from engine.core.offline import admission
from tests import _crd_corpus

ROOT = Path(__file__).resolve().parents[4]
SEEDS = ("deploywebservice", "guestbook", "mysqlcluster", "network", "playbook")


def shipped(seed: str) -> dict[str, Any]:
    crd: dict[str, Any] = yaml.safe_load((ROOT / "tests" / "shipped_crds" / f"{seed}.yaml").read_text())
    return crd


def generated(seed: str) -> dict[str, Any]:
    crd = kinds.load_kind(ROOT / "templates" / seed).crd
    assert crd is not None, f"templates/{seed}/kind.yaml has no schema:"
    return crd


def samples(seed: str) -> list[dict[str, Any]]:
    files = sorted((ROOT / "templates" / seed / "examples").glob("*.yaml"))
    return [d.data for file in files for d in documents.Document.read_all(file) if isinstance(d.data, dict)]


def _without_column_descriptions(crd: dict[str, Any]) -> dict[str, Any]:
    crd = copy.deepcopy(crd)
    for version in crd["spec"]["versions"]:
        for column in version.get("additionalPrinterColumns", []):
            column.pop("description", None)
    return crd


@pytest.mark.parametrize("seed", SEEDS)
def test_the_schema_writes_the_crd_that_was_shipped(seed: str) -> None:
    assert _without_column_descriptions(generated(seed)) == _without_column_descriptions(shipped(seed))


def corpus(seed: str) -> list[tuple[str, dict[str, Any]]]:
    """Every CR of the corpus, once: the variations either CRD calls for, and the first sample with
    each status either calls for."""
    base = samples(seed)
    made = [
        *_crd_corpus.custom_resources(shipped(seed), base),
        *_crd_corpus.custom_resources(generated(seed), base),
    ]
    statuses = [*_crd_corpus.statuses(shipped(seed)), *_crd_corpus.statuses(generated(seed))]
    made += [(label, {**base[0], "status": status}) for label, status in statuses]
    return list({json.dumps(obj, sort_keys=True): (label, obj) for label, obj in made}.values())


def _judged(crds: admission.OfflineCrds, kind: kinds.Kind, document: documents.Document) -> tuple[Any, ...]:
    found, notes, parent = crds.judge(document, kind, "default")
    return tuple((error.field, error.message) for error in found), tuple(notes), parent


@pytest.mark.parametrize("seed", SEEDS)
def test_both_crds_judge_every_object_of_the_corpus_alike(seed: str, tmp_path: Path) -> None:
    kind = kinds.load_kind(ROOT / "templates" / seed)
    made = corpus(seed)
    file = tmp_path / "corpus.yaml"
    file.write_text(yaml.safe_dump_all([obj for _, obj in made], sort_keys=False))
    read = documents.Document.read_all(file, documents.StencilError)
    by_hand, by_schema = admission.OfflineCrds([shipped(seed)]), admission.OfflineCrds([generated(seed)])

    judged = [
        (label, _judged(by_hand, kind, d), _judged(by_schema, kind, d))
        for (label, _), d in zip(made, read, strict=True)
    ]

    differing = [(label, hand, schema) for label, hand, schema in judged if hand != schema]
    assert differing == []
    # The corpus reaches both sides of the API: CRs it takes (defaulted) and CRs it refuses.
    refused = {label for label, (found, _, _), _ in judged if found}
    assert refused and len(refused) < len(judged), (len(refused), len(judged))
