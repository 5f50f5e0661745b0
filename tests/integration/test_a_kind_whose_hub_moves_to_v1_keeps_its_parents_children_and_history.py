"""A kind whose hub moves on, as an API evolves: it shipped at v1alpha1, its parents were made and
are Ready; then its folder says ``parent.apiVersion: .../v1`` and serves v1alpha1 in ``versions:``.
The engine, running, picks the change up, and:

- every parent (the same object, the same uid) keeps its children: no child is deleted, made
  again or pruned; each child is written once, its controller owner reference moved to v1 with the
  same uid (the API server keeps one object whatever version it is read at; the reference names
  the version the kind now reads its parents at, which stays served when v1alpha1 is retired);
- every parent is reconciled again at v1, and its status is written once: the controller that
  read the parents at v1alpha1 stopped before the one at v1 started, and it wrote nothing after
  it did (a write at v1alpha1 is an entry of that version in the parent's managedFields);
- the kind's revisions go on from where they were (revision 2, beside 1 until no parent records
  it), its KindRollout is the same object and says revision 2, and the engine keeps its claim of
  the kind, whose Lease is one for every version of the group;
- a child's event still reaches the parent: a child deleted after the change is made again at
  once, not at the next resync.

The CRD serves both versions with the same schema and ``conversion: None``, so that the API server
only changes a parent's apiVersion between them (no conversion webhook is needed for that).
"""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.core.decisions.coordination import holding
from engine.core.model import kinds
from engine.core.model.language.documents import Document
from engine.core.model.versioning import versions
from engine.localcluster import LocalCluster
from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.reconciling import revisions
from engine.tools import manifests
from tests.integration._engine import eventually
from tests.integration._process import engine_process
from tests.integration._recording import Recording, recording
from tests.integration._rollouts import ready, revision_of

GROUP = "hubchange.tests.stencil.dev"
OLD, NEW = f"{GROUP}/v1alpha1", f"{GROUP}/v1"
KIND = "Gadget"
PARENTS = 3
SETTLE = 3.0  # seconds the test goes on watching once everything reads as done: a late write shows

SCHEMA = "schema:\n  spec:\n    value: string | required=true\n"
BEFORE = f"""\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: {OLD}
  kind: {KIND}
{SCHEMA}templates: [settings.yaml, extra.yaml]
"""
AFTER = f"""\
apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: {NEW}
  kind: {KIND}
{SCHEMA}versions:
  - name: v1alpha1
    schema:
      spec:
        value: string | required=true
templates: [settings.yaml, extra.yaml]
"""
TEMPLATES = {
    "settings.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{{ name }}-settings"\n'
    'data:\n  value: "{{ spec.value }}"\n',
    "extra.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "{{ name }}-extra"\n'
    'data:\n  of: "{{ name }}"\n',
}


def _write(folder: Path, kind_yaml: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in TEMPLATES.items():
        (folder / name).write_text(text)
    (folder / "kind.yaml").write_text(kind_yaml)


def _crd(tmp_path: Path) -> dict[str, Any]:
    """The CRD the v1 folder writes, both versions served with one schema, v1alpha1 stored, and no
    conversion but the apiVersion."""
    folder = tmp_path / "crd" / "gadget"
    _write(folder, AFTER)
    kind = kinds.load_kind(folder)
    crd = versions.crd(
        Document.read(folder / kinds.KIND_FILE), kind.api_version, kind.kind, versions.Webhook()
    )
    for version in crd["spec"]["versions"]:
        version["storage"] = version["name"] == "v1alpha1"
    crd["spec"]["conversion"] = {"strategy": "None"}
    return crd


@contextlib.contextmanager
def _installed(kube: Kube, crd: dict[str, Any]) -> Iterator[None]:
    crds = kube.resource(manifests.CRD_API, "CustomResourceDefinition")
    kube.apply(crd)
    try:
        eventually(
            lambda: _established(kube, crds, crd["metadata"]["name"]), what="the Gadget CRD Established"
        )
        manifests.served(kube, crd, time.monotonic() + 60)
        yield
    finally:
        kube.delete(crds, crd["metadata"]["name"])


def _established(kube: Kube, crds: Resource, name: str) -> bool:
    found = kube.get(crds, name) or {}
    return any(
        c["type"] == "Established" and c["status"] == "True"
        for c in (found.get("status") or {}).get("conditions") or []
    )


def _children(kube: Kube, namespace: str) -> dict[str, dict[str, Any]]:
    items, _ = kube.list(kube.resource("v1", "ConfigMap"), namespace)
    return {c["metadata"]["name"]: c for c in items if c["metadata"]["name"].startswith("gadget-")}


def _owner(child: dict[str, Any]) -> tuple[str, str]:
    (ref,) = [r for r in child["metadata"].get("ownerReferences") or [] if r.get("controller")]
    return ref["apiVersion"], ref["uid"]


def _all_at(kube: Kube, gadgets: Resource, namespace: str, revision: int) -> bool:
    items, _ = kube.list(gadgets, namespace)
    return len(items) == PARENTS and all(revision_of(p) == revision and ready(p) for p in items)


def _writes(record: Recording, name: str) -> list[dict[str, Any]]:
    """Every version of parent ``name`` written since the recording began."""
    return [obj for type_, obj in record.of(name) if type_ == "MODIFIED"]


def _status_versions(parent: dict[str, Any]) -> set[str]:
    """The apiVersions the engine's status writes of ``parent`` were made at, from managedFields."""
    return {
        entry["apiVersion"]
        for entry in parent["metadata"].get("managedFields") or []
        if entry.get("manager") == "stencil" and entry.get("subresource") == "status"
    }


def test_a_kind_whose_hub_moves_to_v1_keeps_its_parents_children_and_history(
    kube: Kube, namespace: str, crds_installed: list[str], local_cluster: LocalCluster, tmp_path: Path
) -> None:
    folder = tmp_path / "templates" / "gadget"
    _write(folder, BEFORE)
    args = (
        "--namespace",
        namespace,
        "--templates",
        str(tmp_path / "templates"),
        "--revisions-namespace",
        namespace,
    )
    rollouts = kube.resource(revisions.GROUP_VERSION, revisions.ROLLOUT_KIND)
    with (
        _installed(kube, _crd(tmp_path)),
        engine_process(local_cluster.kubeconfig, tmp_path / "engine.log", *args, "--workers", "2") as engine,
    ):
        old, new = kube.resource(OLD, KIND), kube.resource(NEW, KIND)
        for i in range(PARENTS):
            kube.create(
                {
                    "apiVersion": OLD,
                    "kind": KIND,
                    "metadata": {"name": f"gadget-{i}", "namespace": namespace},
                    "spec": {"value": str(i)},
                }
            )
        eventually(lambda: _all_at(kube, old, namespace, 1), what=f"every Gadget Ready at {OLD}, revision 1")
        listed = kube.list(old, namespace)[0]
        parents = {p["metadata"]["name"]: p["metadata"]["uid"] for p in listed}
        assert all(_status_versions(p) == {OLD} for p in listed), [p["metadata"] for p in listed]
        children = _children(kube, namespace)
        assert len(children) == 2 * PARENTS, sorted(children)
        assert {_owner(c)[0] for c in children.values()} == {OLD}
        kind_rollout = kube.get(rollouts, "gadget")
        assert kind_rollout is not None and kind_rollout["status"]["currentRevision"] == 1, kind_rollout

        with (
            recording(kube, kube.resource("v1", "ConfigMap"), namespace) as cms,
            recording(kube, new, namespace) as ps,
        ):
            (folder / "kind.yaml").write_text(AFTER)  # the author's change, picked up live
            eventually(
                lambda: _all_at(kube, new, namespace, 2), what=f"every Gadget Ready at {NEW}, revision 2"
            )
            eventually(
                lambda: {_owner(c)[0] for c in _children(kube, namespace).values()} == {NEW},
                what=f"every child's owner reference at {NEW}",
            )
            time.sleep(SETTLE)
            changed = [(t, o["metadata"]["name"]) for t, o in cms.seen()]
            rewritten = {name: _writes(ps, name) for name in parents}

            # A child's event still reaches its parent's controller: one deleted is made again.
            kube.delete(kube.resource("v1", "ConfigMap"), "gadget-0-extra", namespace)
            eventually(
                lambda: "gadget-0-extra" in _children(kube, namespace),
                timeout=15,
                what="gadget-0-extra made again after its deletion (the child's event woke its parent)",
            )

        log = engine.output()
        # The same parents and children: nothing deleted or made again, each child written once.
        after = _children(kube, namespace)
        assert {p["metadata"]["name"]: p["metadata"]["uid"] for p in kube.list(new, namespace)[0]} == parents
        assert {n: c["metadata"]["uid"] for n, c in after.items() if n != "gadget-0-extra"} == {
            n: c["metadata"]["uid"] for n, c in children.items() if n != "gadget-0-extra"
        }
        assert Counter(t for t, _ in changed) == Counter(MODIFIED=2 * PARENTS), changed
        assert sorted(n for _, n in changed) == sorted(children), changed
        for name, child in after.items():
            assert _owner(child) == (NEW, parents[name.rsplit("-", 1)[0]]), child["metadata"]
        # Each parent written once after the change: its status, at v1 (nothing at v1alpha1 after).
        for name, writes in rewritten.items():
            assert len(writes) == 1, (name, [w["status"] for w in writes], log)
            assert NEW in _status_versions(writes[0]), (name, writes[0]["metadata"]["managedFields"])
        # The revisions go on from the kind's history; its KindRollout is the same object.
        kept = kube.get(rollouts, "gadget")
        assert kept is not None and kept["metadata"]["uid"] == kind_rollout["metadata"]["uid"]
        assert kept["status"]["currentRevision"] == 2, kept["status"]
        kept_revisions, _ = kube.list(
            kube.resource("apps/v1", "ControllerRevision"), namespace, f"{revisions.KIND_LABEL}=gadget"
        )
        assert max(r["revision"] for r in kept_revisions) == 2, [r["revision"] for r in kept_revisions]
        # The engine still holds the kind: its claim, one for both versions, names it.
        lease = kube.get(
            kube.resource("coordination.k8s.io/v1", "Lease"), holding.lease_name(NEW, KIND), namespace
        )
        assert lease is not None and lease["spec"].get("holderIdentity"), (lease, log)
        assert "reconcile failed" not in log, log
