"""A patch template's output is no child: it gets no owner reference and no Stencil label, and is
kept apart from the children.  It may name only labels, annotations and fields of an object of a
kind its patch templates spell out, where a child of the parent could be; never a status, another
piece of metadata, Stencil's own labels, a namespace placement does not allow or one off limits.
Its record on the parent reads back what was written, and a record a tenant broke reads as empty.
kind.yaml's mistakes are refused at their line, and ``stencil rbac`` grants a patched kind only
``get`` and ``patch``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import jsonpatch
import pytest

from engine.core import door
from engine.core.model import kinds
from engine.core.model.children import patches
from engine.core.model.errors import KindError, PlacementError
from engine.core.offline import rbac
from tests.unit import _kinds

LABEL = """\
apiVersion: v1
kind: Namespace
metadata:
  name: "{{ spec.target }}"
  labels: {team: "{{ spec.team }}"}
"""
CONFIG = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\n{{ spec.more | default('') }}\n"


def _kind(*texts: str, **placement: Any) -> kinds.Kind:
    kind = _kinds.kind(_kinds.configmap("  a: b\n"), *texts, placement=kinds.Placement(**placement))
    templates = [kind.templates[0], *(dataclasses.replace(t, patch=True) for t in kind.templates[1:])]
    return dataclasses.replace(kind, templates=tuple(templates))


def test_a_patch_is_kept_apart_from_the_children_and_carries_nothing_of_stencils() -> None:
    rendered = door.render(
        _kind(LABEL, cluster_scoped=True), _kinds.parent({"target": "team-a", "team": "x"}), []
    )

    assert [c["kind"] for c in rendered.children] == ["ConfigMap"]
    (patch,) = [one.child for one in rendered.patches]
    assert patch == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "team-a", "labels": {"team": "x"}},
    }


@pytest.mark.parametrize(
    ("more", "problem"),
    [
        ("status: {phase: Gone}", "never writes an object's status"),
        ("  finalizers: [mine]", "names only labels and annotations"),
        ("  labels: {stencil.dev/parent-uid: uid-2}", "Stencil's own"),
        ("  labels: {app.kubernetes.io/managed-by: stencil}", "Stencil's own"),
        ("  namespace: elsewhere", "namespace 'elsewhere' is not allowed"),
        ("  namespace: kube-system", "not allowed"),
    ],
)
def test_a_patch_naming_what_its_kind_may_not_set_is_refused(more: str, problem: str) -> None:
    text = CONFIG.replace("{{ spec.more | default('') }}", "") + more + "\n"
    if more.startswith("status"):
        text = CONFIG.replace("{{ spec.more | default('') }}\n", "") + more + "\n"

    with pytest.raises(PlacementError, match=problem):
        door.render(_kind(text), _kinds.parent({}), [])


def test_a_namespace_off_limits_is_refused_whatever_placement_allows() -> None:
    text = CONFIG.replace("{{ spec.more | default('') }}", "  namespace: kube-system")

    with pytest.raises(PlacementError, match="off limits"):
        door.render(_kind(text, namespaces=("*",)), _kinds.parent({}), [])


def test_a_kind_no_patch_template_spells_out_is_refused() -> None:
    text = "apiVersion: v1\nkind: {{ spec.what }}\nmetadata: {name: x}\n"

    with pytest.raises(PlacementError, match="not spelled out in a patch template"):
        door.render(_kind(text), _kinds.parent({"what": "Secret"}), [])


def test_the_record_reads_back_what_was_written_and_a_broken_one_reads_as_empty() -> None:
    parent = _kinds.parent()
    parent["metadata"]["resourceVersion"] = "7"
    entries = {"v1/Namespace//team-a": "abc", "apps/v1/Deployment/ns/web": ""}

    written = jsonpatch.apply_patch(parent, patches.record_patch(parent, entries))

    assert patches.record(written) == entries
    assert patches.record_patch(written, entries) is None
    emptied = jsonpatch.apply_patch(written, patches.record_patch(written, {}))
    assert patches.ANNOTATION not in emptied["metadata"]["annotations"]
    assert [patches.target_of(k) for k in sorted(entries)][1] == {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "team-a"},
    }
    for broken in ("[1, 2]", "{not json", '"text"'):
        assert patches.record({"metadata": {"annotations": {patches.ANNOTATION: broken}}}) == {}


def test_a_parents_manager_is_its_own_and_fits_a_field_manager() -> None:
    long_a, long_b = _kinds.parent(name="a" * 250), _kinds.parent(name="a" * 249 + "b")

    assert patches.manager("web", _kinds.parent()) == "stencil-patch/web/ns/w"
    assert len(patches.manager("web", long_a)) <= 128
    assert patches.manager("web", long_a) != patches.manager("web", long_b)


def test_what_a_parent_holds_of_a_target_is_what_its_manager_holds_there() -> None:
    labels = {"f:metadata": {"f:labels": {"f:team": {}}}}
    target = {
        "metadata": {
            "managedFields": [
                {
                    "manager": "kubectl-label",
                    "operation": "Update",
                    "fieldsV1": {"f:metadata": {"f:labels": {"f:o": {}}}},
                },
                {"manager": "stencil-patch/web/ns/w", "operation": "Apply", "fieldsV1": labels},
            ]
        }
    }

    assert patches.fields_of(target, "stencil-patch/web/ns/w") == labels
    assert patches.held(patches.fields_of(target, "stencil-patch/web/ns/w")) == {("labels", "team")}
    assert patches.fields_of(target, "stencil-patch/web/ns/other") is None
    assert patches.fields_of(target, "kubectl-label") is None  # an Update is no patch of ours


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("{file: team.yaml, patch: true, readyWhen: 'true'}", r"templates\[1\]\.readyWhen: a patch template"),
        ("{file: team.yaml, patch: true, deletionPolicy: Orphan}", r"\.deletionPolicy: a patch template"),
    ],
)
def test_a_patch_template_with_a_childs_settings_is_refused_at_its_line(
    tmp_path: Path, entry: str, problem: str
) -> None:
    folder = _kinds.kind_folder(tmp_path, f"templates:\n  - cm.yaml\n  - {entry}\n")
    (folder / "team.yaml").write_text(LABEL)

    with pytest.raises(KindError, match=problem) as raised:
        kinds.load_kind(folder)
    assert raised.value.line == 8


def test_a_patch_is_neither_waited_for_nor_read_as_a_child(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(
        tmp_path, "templates:\n  - {file: cm.yaml, after: [team]}\n  - {file: team.yaml, patch: true}\n"
    )
    (folder / "team.yaml").write_text(LABEL)
    with pytest.raises(KindError, match="'team' is a patch: it makes no child to wait for"):
        kinds.load_kind(folder)

    (folder / "kind.yaml").write_text(
        _kinds.KIND_YAML + "templates:\n  - cm.yaml\n  - {file: team.yaml, patch: true}\n"
    )
    (folder / "cm.yaml").write_text(_kinds.configmap("  a: '{{ children.team.metadata.name }}'\n"))
    with pytest.raises(KindError, match=r"children\.team: 'team' is a patch, no child") as raised:
        kinds.load_kind(folder)
    assert raised.value.file.endswith("cm.yaml")


def test_rbac_grants_a_patched_kind_only_get_and_patch_and_the_parent_patch() -> None:
    kind = _kind(LABEL, cluster_scoped=True)

    rules = rbac.derive_rules([kind], lambda api_version, k: ("", k.lower() + "s"), common=False)

    verbs = {resource: rule["verbs"] for rule in rules for resource in rule["resources"]}
    assert verbs["namespaces"] == ["get", "patch"], rules
    assert "create" in verbs["configmaps"]
    assert "patch" in verbs["webs"]
