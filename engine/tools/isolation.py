"""What the examples of one ``stencil test`` run keep apart, and what they share.

Every example runs at the same time on one control plane.  Each gets a namespace of its
own (``namespace_names``), so the namespaced objects of two examples never meet, even
when their parents have the same name.  What a namespace cannot hold is shared: the
cluster-scoped objects (Namespaces, ClusterRoles, PersistentVolumes, a cluster-scoped
parent), and the CRDs.  Two examples that make the same cluster-scoped object would
fight over it, and which one wins would depend on timing, so ``clashes`` finds them
before anything is applied and the later example is not run.

Pure: names and identities in, names and sentences out.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from engine.core.model.identity import ChildId

MAX_LABEL = 63  # a namespace name is a DNS-1123 label
_HASH = 6  # hex digits that keep two names apart when their words agree or are cut short

SHARED = (
    "each example runs in a namespace of its own; shared by all of them: the CRDs and every "
    "cluster-scoped object (Namespaces, ClusterRoles, a cluster-scoped parent...)"
)


def namespace_names(examples: Sequence[tuple[str, str]]) -> list[str]:
    """A namespace for each ``(kind, example)``: ``<kind>-<example>-<hash>``, a DNS label, all different.

    The hash of the whole name keeps apart two names cut to the same words, keeps the name off
    the cluster's own (``kube-system``), and makes it unlike any other string of the example,
    so a golden file can say ``${NAMESPACE}`` for every occurrence of it.
    """
    names: list[str] = []
    for kind, stem in examples:
        whole = f"{kind}/{stem}"
        slug = re.sub(r"[^a-z0-9]+", "-", whole.lower()).strip("-") or "example"
        digest = hashlib.sha256(whole.encode()).hexdigest()
        name = f"{slug[: MAX_LABEL - _HASH - 1].rstrip('-')}-{digest[:_HASH]}"
        turn = 0
        while name in names:
            turn += 1
            suffix = f"-{digest[:_HASH]}{turn}"
            name = f"{slug[: MAX_LABEL - len(suffix)].rstrip('-')}{suffix}"
        names.append(name)
    return names


def clashes(examples: Sequence[tuple[str, Sequence[tuple[ChildId, str]]]]) -> dict[int, list[str]]:
    """The examples that make a cluster-scoped object an earlier example makes too.

    ``examples`` are ``(name, made)`` in run order, ``made`` the cluster-scoped objects the
    example would make, each with where it comes from (``file:line``).  Returned: for each
    later example of a clashing pair, by its index, one sentence per object it shares.
    """
    first: dict[ChildId, str] = {}
    found: dict[int, list[str]] = {}
    for index, (name, made) in enumerate(examples):
        mine: dict[ChildId, str] = {}
        for key, where in made:
            other = first.get(key)
            if other is not None:
                found.setdefault(index, []).append(
                    f"{where}: {key} is made by example {other} too; cluster-scoped "
                    "objects are shared by every example of the run, so name them after the parent"
                )
            mine.setdefault(key, name)
        if index not in found:  # an example that is not run holds nothing
            for key, owner in mine.items():
                first.setdefault(key, owner)
    return found
