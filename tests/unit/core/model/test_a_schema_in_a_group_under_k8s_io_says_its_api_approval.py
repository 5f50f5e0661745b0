"""The API server serves a CRD in a group under k8s.io or kubernetes.io only with the annotation
``api-approved.kubernetes.io``: ``schema.apiApproved`` writes it; without it such a schema is an
error at the parent's apiVersion, and with it in any other group (where it does nothing) an error
at its own line."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from tests.unit import _schema_kinds

APPROVED = "unapproved, kept so the sample controller's CRs still apply"


def _in_group(tmp_path: Path, group: str, schema_text: str) -> Path:
    folder = _schema_kinds.folder(tmp_path, schema_text)
    text = (folder / kinds.KIND_FILE).read_text().replace("shop.example.com", group)
    (folder / kinds.KIND_FILE).write_text(text)
    return folder


@pytest.mark.parametrize("group", ["samplecrd.k8s.io", "k8s.io", "x.kubernetes.io"])
def test_the_approval_is_the_crds_annotation(tmp_path: Path, group: str) -> None:
    folder = _in_group(tmp_path, group, f"schema:\n  apiApproved: {APPROVED}\n  spec: {{}}\n")
    crd = kinds.load_kind(folder).crd
    assert crd is not None
    assert crd["metadata"] == {
        "name": f"shops.{group}",
        "annotations": {"api-approved.kubernetes.io": APPROVED},
    }


def test_a_reserved_group_without_approval_is_an_error_at_the_api_version(tmp_path: Path) -> None:
    folder = _in_group(tmp_path, "samplecrd.k8s.io", "schema:\n  spec: {}\n")
    with pytest.raises(KindError) as raised:
        kinds.load_kind(folder)
    said = "parent.apiVersion: schema: samplecrd.k8s.io is reserved for upstream APIs"
    assert str(raised.value).startswith(f"{folder / kinds.KIND_FILE}:4: {said}"), str(raised.value)


def test_an_approval_in_another_group_is_an_error_at_its_line(tmp_path: Path) -> None:
    folder = _schema_kinds.folder(tmp_path, f"schema:\n  apiApproved: {APPROVED}\n  spec: {{}}\n")
    with pytest.raises(KindError) as raised:
        kinds.load_kind(folder)
    said = "schema.apiApproved: shop.example.com is not a group under k8s.io or kubernetes.io"
    assert str(raised.value).startswith(f"{folder / kinds.KIND_FILE}:8: {said}"), str(raised.value)


def test_an_approval_is_a_url_or_says_unapproved(tmp_path: Path) -> None:
    folder = _in_group(tmp_path, "samplecrd.k8s.io", "schema:\n  apiApproved: approved by me\n  spec: {}\n")
    with pytest.raises(KindError) as raised:
        kinds.load_kind(folder)
    assert f"{folder / kinds.KIND_FILE}:8: schema.apiApproved: " in str(raised.value), str(raised.value)
