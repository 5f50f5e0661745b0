"""Which kind serves a parent kind that more than one kind claims.

Two kinds that serve one parent kind (the same group and kind, whatever their versions) fight:
each renders its own children, prunes the other's, and the parent's children are deleted and made
again in turn.  Kinds come from the templates folder and from ConfigMaps (``engine.runtime.serving.
manager``), and a kind author who may write a kind ConfigMap must not take over, or break, a kind
already served.  So the first claimant keeps the parent kind and every later one is refused:

- the kind that serves the parent kind now keeps it, whatever comes later, from anywhere;
- else the first in the order given: the engine gives the folder's kinds before the ConfigMaps'
  (an admin's image before a kind author's ConfigMap), each by name.

A broken kind that names its parent counts as a claimant too: served, it would mark the parents
of the kind that serves them with its error.  ``settle`` is pure; the engine says each refusal.

A kind whose folder moves its hub (``parent.apiVersion``) to another version of its group is the
same claimant: the parent kind is served by one controller, which moves to the new version with it
(``moved_hub``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from engine.core.model import apis

GroupKind = tuple[str, str]  # (group, kind)
ParentKind = tuple[str, str]  # (apiVersion, kind)


@dataclass(frozen=True)
class Claimant:
    """A kind that would serve ``parent``: its name and where it comes from (a folder's path, or
    a ConfigMap as ``ConfigMap namespace/name``)."""

    name: str
    source: str
    parent: GroupKind


@dataclass(frozen=True)
class Refusal:
    """``refused`` claims the parent kind that ``holder`` serves, and is not served."""

    refused: Claimant
    holder: Claimant

    def message(self) -> str:
        group, kind = self.holder.parent
        served = f"{kind}.{group}" if group else kind
        return (
            f"kind {self.refused.name} from {self.refused.source} is not loaded: its parent {served} "
            f"is served by kind {self.holder.name} from {self.holder.source}"
        )


def settle(running: Mapping[GroupKind, str], claimants: Sequence[Claimant]) -> list[Refusal]:
    """The claimants refused, given the name of the kind serving each parent kind now
    (``running``) and every claimant in the order of precedence."""
    holders: dict[GroupKind, Claimant] = {}
    for claimant in claimants:
        if running.get(claimant.parent) == claimant.name:
            holders[claimant.parent] = claimant
    for claimant in claimants:
        holders.setdefault(claimant.parent, claimant)
    return [Refusal(c, holders[c.parent]) for c in claimants if holders[c.parent] is not c]


def moved_hub(served: Iterable[ParentKind], parent: ParentKind) -> ParentKind | None:
    """The parent kind among ``served`` that is ``parent``'s group and kind at another version: the
    hub its kind read its parents at until its folder moved it to ``parent``'s; None if none is."""
    group_kind = (apis.group_of(parent[0]), parent[1])
    return next((p for p in served if p != parent and (apis.group_of(p[0]), p[1]) == group_kind), None)
