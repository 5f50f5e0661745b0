"""A kind dropped into a running release of the chart: the objects that make its engine serve the
kind, with no upgrade and no restart (``stencil bundle``).

The chart binds the engine to two aggregated ClusterRoles for such kinds: kube-controller-manager
fills in their rules from every ClusterRole their selector matches, so a new labelled ClusterRole
adds to what the engine may do as soon as it is aggregated.  A kind needs rules in two places, so
it brings two ClusterRoles:

- one aggregated into ``<fullname>-bundled``, bound where the chart's own rules are (cluster-wide,
  or in each watched namespace): what ``stencil rbac`` derives for the kind
  (``rbac.engine_rules``), without the rules the release has whatever it serves;
- one aggregated into ``<fullname>-bundled-leases``, bound in the kinds' Lease namespace only: the
  kind's Lease by name (``rbac.kind_lease_rules``);

and then its ConfigMap (``engine.core.model.bundles``), last, so that the rules are there before
the engine loads the kind.

A ClusterRole is picked up by one release alone: its labels name the release and its namespace
(``aggregation_labels``), and Helm lets two releases share a name only in different namespaces.
The chart selects them with the same labels (``charts/stencil/templates/_helpers.tpl``; a chart
test checks that the two agree).
"""

from __future__ import annotations

import re
from typing import Any

from engine.core.decisions import referencing
from engine.core.model import bundles, errors
from engine.core.model.kinds import Kind
from engine.core.offline import rbac

# Which of a release's aggregated roles a ClusterRole joins: the engine's, or its kinds' Leases'.
ENGINE = "stencil.dev/aggregate-to-engine"
KIND_LEASES = "stencil.dev/aggregate-to-kind-leases"
RELEASE_NAMESPACE = "stencil.dev/release-namespace"  # and the release's namespace, with its name
_LABEL_VALUE = re.compile(r"[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?")  # a release's or namespace's name


def aggregation_labels(role: str, release: str, namespace: str) -> dict[str, str]:
    """The labels that aggregate a ClusterRole into ``role`` (``ENGINE`` or ``KIND_LEASES``) of the
    release ``release`` in ``namespace``, and of no other release."""
    for what, name in (("release", release), ("namespace", namespace)):
        if not _LABEL_VALUE.fullmatch(name):
            raise errors.StencilError(f"{what} {name!r} is not the name of a Helm release's {what}")
    return {role: release, RELEASE_NAMESPACE: namespace}


def documents(
    kind: Kind,
    resources: rbac.Resources,
    defaults: rbac.Defaults,
    *,
    release: str = "stencil",
    namespace: str = "stencil-system",
    sharded: bool = False,
    reader: str = referencing.DEFAULT_READER,
) -> list[dict[str, Any]]:
    """What ``stencil bundle`` prints for ``kind`` and the release ``release`` in ``namespace``
    (``sharded``: a release with ``sharding.enabled``; ``reader``: its ``readAs``)."""
    name = f"stencil:{namespace}:{release}:{kind.name}"  # one per kind and release in the cluster
    rules = rbac.engine_rules([kind], resources, defaults, common=False, sharded=sharded, reader=reader)
    roles = [
        (rbac.clusterrole(rules, name), ENGINE),
        (rbac.clusterrole(rbac.kind_lease_rules([kind]), f"{name}:lease"), KIND_LEASES),
    ]
    for role, joins in roles:
        role["metadata"]["labels"] = aggregation_labels(joins, release, namespace)
    return [*(role for role, _ in roles), bundles.configmap(kind.directory, kind.name, namespace)]
