"""The least privilege the engine needs, derived from the kinds it serves.

A hand-written operator keeps RBAC markers next to its code and regenerates a
Role from them (seed 000 did); Stencil knows its needs from the kind folders
themselves, so ``stencil rbac`` and the Helm chart derive the rules instead of
asking anyone to keep a list in step with the templates:

- each parent kind: ``get/list/watch``; its ``status`` subresource
  ``get/update/patch``; its ``finalizers`` subresource ``update`` (the API server
  demands it before a child may carry ``blockOwnerDeletion`` for that parent);
- each child kind any template renders: ``get/list/watch`` for the caches,
  ``create/patch`` for server-side apply, ``delete`` for pruning;
- each kind a folder observes: ``get/list/watch``, nothing more;
- each kind a folder references (``references:``): nothing, for the engine reads it as a
  ServiceAccount of the parent's namespace (``referencing.reader``): ``impersonate`` on
  ServiceAccounts of that name alone, and a ClusterRole ``<name>-reader`` of ``get/list/watch``
  on those kinds, for a namespace to bind to its account where it lets parents read them;
- Events, core and ``events.k8s.io``: ``create/patch``.

Leader election is deliberately *not* among these cluster-wide rules: write
access to every Lease in the cluster would let the engine take over the leases
of kube-scheduler or kube-controller-manager.  ``namespace_rules`` gives it for
the engine's own namespace only, with ``get/update`` narrowed to the one Lease,
together with read access to the ConfigMaps that carry drop-in kinds.  The Leases that hold
each kind for one engine (``engine.core.decisions.coordination.holding``) live in a namespace every engine
sees, ``kube-system`` by default: ``kind_lease_rules`` grants ``get/update`` there on those
Leases by name, so the engine can never write another component's Lease.  A kind's claim names
its holder's heartbeat, a Lease in any namespace (another release's leader Lease): a standby
reads it, so ``heartbeat_rules`` grants ``get`` on Leases cluster-wide, and nothing else on them.

Which kinds a folder renders is found by rendering each of its examples (pure,
no cluster) and, because a child behind an ``{% if %}`` that no example turns
on would be missed that way, also by reading the literal top-level
``apiVersion``/``kind`` pair of every document in every template.  A plural is
never guessed: ``resources(api_version, kind)`` is passed in, online from
discovery, offline from ``offline_resources`` (the CRDs in ``crds/`` plus a table
of built-in kinds); an unknown kind is an error naming it.

Rules come out merged and sorted, one API group per rule, never a wildcard, so
the output is stable enough to commit and to compare in a test.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import yaml

from engine.core.decisions import referencing
from engine.core.decisions.coordination import holding
from engine.core.decisions.plans import planning
from engine.core.model import apis, errors
from engine.core.model.children import placement
from engine.core.model.kinds import Kind
from engine.core.model.language import seedkeys
from engine.core.offline import admission
from engine.core.templating import rendering

Rule = dict[str, list[str]]
Resources = Callable[[str, str], tuple[str, str]]

RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"
PARENT_VERBS = ("get", "list", "watch")
STATUS_VERBS = ("get", "patch", "update")
FINALIZER_VERBS = ("update",)
CHILD_VERBS = ("create", "delete", "get", "list", "patch", "watch")
CACHE_VERBS = ("get", "list", "watch")  # children a kind applies as its own ServiceAccount
PATCH_VERBS = ("get", "patch")  # objects a kind patches but does not own: read, then applied
EVENT_VERBS = ("create", "patch")


def offline_resources(crd_dir: Path, kinds: Iterable[Kind] = ()) -> Resources:
    """``resources`` without a cluster: the CRDs under ``crd_dir`` and those ``kinds`` write, plus the
    built-in table."""
    table = {group_kind: plural for group_kind, (plural, _) in apis.BUILTIN_KINDS.items()}
    for crd in admission.with_generated(crd_dir, kinds):
        spec = crd.get("spec") or {}
        names = spec.get("names") or {}
        table[(spec.get("group", ""), names.get("kind", ""))] = names.get("plural", "")

    def resources(api_version: str, kind: str) -> tuple[str, str]:
        group = apis.group_of(api_version)
        plural = table.get((group, kind))
        if not plural:
            raise errors.KindError(
                f"no resource known for {kind} in {api_version}: "
                f"it is not a built-in kind and no CRD in {crd_dir} defines it"
            )
        return group, plural

    return resources


# -- which kinds a folder renders --------------------------------------------

# How a template spells a child kind out (``placement``) and how examples render them (``rendering``).
literal_child_kinds = placement.literal_child_kinds
spelled_child_kinds = placement.spelled_child_kinds
Defaults = rendering.Defaults
_as_written = rendering.as_written


def rendered_children(kind: Kind, defaults: Defaults = _as_written) -> list[dict[str, Any]]:
    """Every child that rendering the kind's examples yields (``rendering.example_children``)."""
    return rendering.example_children(kind, defaults)


def rendered_child_kinds(kind: Kind, defaults: Defaults = _as_written) -> set[tuple[str, str]]:
    """The ``(apiVersion, kind)`` of every child that rendering the kind's examples yields."""
    return {(str(c["apiVersion"]), str(c["kind"])) for c in rendered_children(kind, defaults)}


def child_kinds(kind: Kind, defaults: Defaults = _as_written) -> set[tuple[str, str]]:
    """Every child kind the kind is known to render (``rendering.child_kinds``), with ``defaults``
    and also as the engine derives them without (``rendering.allowed_child_kinds``): the role
    grants a kind whatever it may write."""
    return set(rendering.child_kinds(kind, defaults) | rendering.allowed_child_kinds(kind))


# -- rules --------------------------------------------------------------------


def merge(grants: Iterable[tuple[str, str, Iterable[str]]]) -> list[Rule]:
    """``(group, resource, verbs)`` grants as PolicyRules, one group each, equal verbs merged."""
    verbs_of: dict[tuple[str, str], set[str]] = defaultdict(set)
    for group, resource, verbs in grants:
        verbs_of[(group, resource)] |= set(verbs)
    by_verbs: dict[tuple[str, tuple[str, ...]], list[str]] = defaultdict(list)
    for (group, resource), verbs in verbs_of.items():
        by_verbs[(group, tuple(sorted(verbs)))].append(resource)
    rules = [
        {"apiGroups": [group], "resources": sorted(resources), "verbs": list(verbs)}
        for (group, verbs), resources in by_verbs.items()
    ]
    return sorted(rules, key=lambda r: (r["apiGroups"], r["resources"], r["verbs"]))


COMMON_GRANTS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("", "events", EVENT_VERBS),
    ("events.k8s.io", "events", EVENT_VERBS),
    # Each kind's KindRollout (cluster-scoped, named after the kind): its rollout's state.
    ("stencil.dev", "kindrollouts", ("get", "list", "watch", "create", "patch")),
    ("stencil.dev", "kindrollouts/status", ("patch",)),
)


def derive_rules(
    kinds: Iterable[Kind],
    resources: Resources,
    defaults: Defaults = _as_written,
    *,
    common: bool = True,
    reader: str | None = referencing.DEFAULT_READER,
) -> list[Rule]:
    """The cluster-wide rules the engine needs to serve ``kinds``, reading references as ``reader``
    where a kind names no account (None: leave that account out, for the chart to name it);
    ``common=False``, without those it needs whatever it serves (events, KindRollouts)."""
    grants: list[tuple[str, str, Iterable[str]]] = list(COMMON_GRANTS) if common else []
    accounts: set[str] = set()
    for kind in kinds:
        # A template that does not compile could spell a child kind; never a role without its rights.
        rendering.check_syntax(kind)
        group, plural = resources(kind.api_version, kind.kind)
        # A kind with a deleteWhen rule deletes its own parents once their work is done.
        parent_verbs: tuple[str, ...] = PARENT_VERBS
        if kind.delete_when:
            parent_verbs = (*parent_verbs, "delete")
        # A child beyond owner references' reach (another namespace, cluster-scoped), or an ordered
        # teardown, holds a finalizer on the parent, set by patch; the examples show the former.
        # A kind that patches objects it does not own records them on the parent, under the finalizer.
        patching = rendering.allowed_patch_kinds(kind)
        if kind.teardown or patching or planning.needs_finalizer(rendered_children(kind, defaults)):
            parent_verbs = (*parent_verbs, "patch")
        grants += [(group, plural, parent_verbs), (group, f"{plural}/finalizers", FINALIZER_VERBS)]
        if kind.decorates is None:  # a decorator never writes the status of what it decorates
            grants.append((group, f"{plural}/status", STATUS_VERBS))
        # A kind that applies as its own ServiceAccount leaves the engine only the reads its
        # cache needs, and the right to act as that account.
        verbs = CACHE_VERBS if kind.service_account else CHILD_VERBS
        if kind.service_account:
            accounts.add(kind.service_account[1])
        for api_version, child in sorted(child_kinds(kind, defaults)):
            child_group, child_plural = resources(api_version, child)
            grants.append((child_group, child_plural, verbs))
        if not kind.service_account:  # else its own account patches them
            for api_version, patched in sorted(patching):
                grants.append((*resources(api_version, patched), PATCH_VERBS))
        # Related objects are only read, for the caches; referenced ones are read as an account.
        for api_version, related in kind.observe:
            related_group, related_plural = resources(api_version, related)
            grants.append((related_group, related_plural, CACHE_VERBS))
        for api_version, referenced in {(r.api_version, r.kind) for r in kind.references}:
            resources(api_version, referenced)  # an unknown kind is an error here too
        if kind.references and (kind.read_as or reader):
            accounts.add(kind.read_as or str(reader))
    rules = merge(grants)
    if accounts:
        rules.append(
            {
                "apiGroups": [""],
                "resources": ["serviceaccounts"],
                "resourceNames": sorted(accounts),
                "verbs": ["impersonate"],
            }
        )
    return rules


def engine_rules(
    kinds: Iterable[Kind],
    resources: Resources,
    defaults: Defaults = _as_written,
    *,
    common: bool = True,
    sharded: bool = False,
    reader: str | None = referencing.DEFAULT_READER,
) -> list[Rule]:
    """``derive_rules``, and with ``sharded`` what sharding adds (``shard_rules``) merged in: the
    ClusterRole's rules of ``stencil rbac`` (and of ``stencil bundle`` for one kind, without the
    ``common`` ones its release already has)."""
    kinds = list(kinds)
    rules = derive_rules(kinds, resources, defaults, common=common, reader=reader)
    if sharded:
        named = [rule for rule in rules if "resourceNames" in rule]
        rules = [*merge(_grants([*rules, *shard_rules(kinds, resources)])), *named]
    return rules


def reader_rules(kinds: Iterable[Kind], resources: Resources) -> list[Rule]:
    """What an account references are read as needs where they look: ``get/list/watch`` of each kind
    a kind references (the ClusterRole ``<name>-reader``, bound in a namespace by a RoleBinding)."""
    return merge((*resources(r.api_version, r.kind), CACHE_VERBS) for kind in kinds for r in kind.references)


def shard_rules(kinds: Iterable[Kind], resources: Resources) -> list[Rule]:
    """What sharding adds cluster-wide: ``patch`` on each kind's parents, for the sharder's owner
    and drain labels and the owner's release of a parent it hands over."""
    return merge((*resources(kind.api_version, kind.kind), ("patch",)) for kind in kinds)


def rules_by_kind(
    kinds: Iterable[Kind], resources: Resources, defaults: Defaults = _as_written
) -> dict[str, Any]:
    """The chart's ``files/rules.yaml``: the rules the engine needs whatever it serves (``common``),
    and each kind's own (``kinds``: its ``rules``, and the ``shards`` rules sharding adds), so that an
    install of some kinds, or of none, grants only what those need."""
    kinds = sorted(kinds, key=lambda k: k.name)
    return {
        "common": derive_rules([], resources, defaults),
        "kinds": [
            {
                "kind": kind.name,
                "rules": derive_rules([kind], resources, defaults, common=False, reader=None),
                "shards": shard_rules([kind], resources),
                # It reads references as the chart's readAs account (impersonate on that name).
                "reads": bool(kind.references and not kind.read_as),
            }
            for kind in kinds
        ],
    }


def namespace_rules(lease_name: str, *, sharded: bool = False) -> list[Rule]:
    """The rules the engine needs in its own namespace: its leader Lease, the kind ConfigMaps,
    the kinds' revisions with what it reads to name their owner, and the Secret of its seed key;
    ``sharded``, also every replica's own Lease (named after its pod, so not by name) and the
    listing of them all that the sharder reads.

    ``create`` cannot be narrowed to a name (the object has none until it
    exists), so it is granted apart from ``get/update`` on ``lease_name`` and ``get`` on the
    seed key's Secret.
    """
    rules: list[Rule] = [
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "list", "watch"]},
        # The kinds' revisions (``stencil run --revisions-namespace``), owned by the engine's
        # Deployment, which it finds from its own pod through the pod's ReplicaSet.
        {
            "apiGroups": ["apps"],
            "resources": ["controllerrevisions"],
            "verbs": ["get", "list", "create", "patch"],
        },
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]},
        {"apiGroups": ["apps"], "resources": ["replicasets"], "verbs": ["get"]},
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
        {
            "apiGroups": ["coordination.k8s.io"],
            "resources": ["leases"],
            "resourceNames": [lease_name],
            "verbs": ["get", "update"],
        },
        # The key random_string draws with, made on the first start: never update or delete.
        {"apiGroups": [""], "resources": ["secrets"], "verbs": ["create"]},
        {
            "apiGroups": [""],
            "resources": ["secrets"],
            "resourceNames": [seedkeys.SECRET_NAME],
            "verbs": ["get"],
        },
    ]
    if sharded:
        rules.append(
            {
                "apiGroups": ["coordination.k8s.io"],
                "resources": ["leases"],
                "verbs": ["get", "list", "watch", "update"],
            }
        )
    return rules


def kind_lease_rules(kinds: Iterable[Kind]) -> list[Rule]:
    """The rules that let the engine hold ``kinds``, for the namespace of the kinds' Leases:
    ``create`` (which cannot be narrowed to a name) and ``get/update`` of each kind's Lease."""
    names = sorted({holding.lease_name(k.api_version, k.kind) for k in kinds})
    return [
        {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
        {
            "apiGroups": ["coordination.k8s.io"],
            "resources": ["leases"],
            "resourceNames": names,
            "verbs": ["get", "update"],
        },
    ]


def heartbeat_rules() -> list[Rule]:
    """The rule that lets a standby read the heartbeat a kind's claim names, wherever it is: ``get``
    of Leases (never ``list``, ``watch`` or a write), for the ClusterRole ``<name>-heartbeats``."""
    return [{"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["get"]}]


def clusterrole(rules: list[Rule], name: str) -> dict[str, Any]:
    return {"apiVersion": RBAC_API_VERSION, "kind": "ClusterRole", "metadata": {"name": name}, "rules": rules}


# -- roles for the people who use the kinds -------------------------------------

# What each of Kubernetes' user-facing roles may do to a kind's parents; the status is the
# engine's to write, so every role only reads it.
USER_VERBS = {
    "admin": ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"),
    "edit": ("create", "delete", "get", "list", "patch", "update", "watch"),
    "view": ("get", "list", "watch"),
}
AGGREGATE_LABEL = "rbac.authorization.k8s.io/aggregate-to-{role}"


def user_roles(kinds: Iterable[Kind], resources: Resources) -> list[dict[str, Any]]:
    """For each kind and each of ``admin``, ``edit`` and ``view``: ``{kind, role, rules}``, the
    rules a ClusterRole aggregated into that built-in role grants on the kind's parents.  The
    chart's ``files/user-roles.yaml`` (hack/sync-chart) and ``user_clusterroles`` read this one list."""
    found = []
    for kind in sorted(kinds, key=lambda k: k.name):
        if kind.decorates is not None:  # its parents are objects of a kind it does not serve
            continue
        group, plural = resources(kind.api_version, kind.kind)
        for role, verbs in USER_VERBS.items():
            rules = [
                {"apiGroups": [group], "resources": [plural], "verbs": list(verbs)},
                {"apiGroups": [group], "resources": [f"{plural}/status"], "verbs": list(USER_VERBS["view"])},
            ]
            found.append({"kind": kind.name, "role": role, "rules": rules})
    return found


def user_clusterroles(roles: Iterable[dict[str, Any]], name: str = "stencil") -> list[dict[str, Any]]:
    """``user_roles`` as the ClusterRoles ``<name>-<kind>-<role>``, each labelled to aggregate into
    the built-in role of its name (what the chart installs, and ``stencil rbac --user-roles`` prints)."""
    documents = []
    for entry in roles:
        document = clusterrole(entry["rules"], f"{name}-{entry['kind']}-{entry['role']}")
        document["metadata"]["labels"] = {AGGREGATE_LABEL.format(role=entry["role"]): "true"}
        documents.append(document)
    return documents


def role(rules: list[Rule], name: str, namespace: str) -> dict[str, Any]:
    return {
        "apiVersion": RBAC_API_VERSION,
        "kind": "Role",
        "metadata": {"name": name, "namespace": namespace},
        "rules": rules,
    }


def documents(
    kinds: Iterable[Kind],
    resources: Resources,
    *,
    name: str = "stencil",
    namespace: str = "stencil-system",
    lease_name: str = "stencil-leader",
    defaults: Defaults = _as_written,
    kind_lease_namespace: str = holding.DEFAULT_NAMESPACE,
    sharded: bool = False,
    reader: str = referencing.DEFAULT_READER,
) -> list[dict[str, Any]]:
    """What ``stencil rbac`` prints: the ClusterRole for the kinds, the Role for the engine's
    namespace, the Role ``<name>-kinds`` for the kinds' Leases and the ClusterRole
    ``<name>-heartbeats`` to read their holders' heartbeats, and, where kinds reference objects,
    the ClusterRole ``<name>-reader`` for the accounts they are read as (``reader`` by default);
    ``sharded`` (``stencil run --shards``), with what sharding adds to the first two
    (``shard_rules``, ``namespace_rules``)."""
    kinds = list(kinds)
    return [
        clusterrole(engine_rules(kinds, resources, defaults, sharded=sharded, reader=reader), name),
        role(namespace_rules(lease_name, sharded=sharded), name, namespace),
        role(kind_lease_rules(kinds), f"{name}-kinds", kind_lease_namespace),
        clusterrole(heartbeat_rules(), f"{name}-heartbeats"),
        *([clusterrole(read, f"{name}-reader")] if (read := reader_rules(kinds, resources)) else []),
    ]


def _grants(rules: Iterable[Rule]) -> list[tuple[str, str, Iterable[str]]]:
    """The rules without resource names back as ``merge``'s grants (one per group and resource)."""
    return [
        (group, resource, rule["verbs"])
        for rule in rules
        if "resourceNames" not in rule
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    ]


def dump(objects: Iterable[dict[str, Any]]) -> str:
    """Objects as a multi-document YAML stream, keys in the order written."""
    return yaml.dump_all(list(objects), Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False)
