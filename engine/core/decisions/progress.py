"""``Reconciling`` and ``Stalled``: the parent's verdict in the words kstatus and Argo CD read.

Flux, kpt, ``helm --wait=watcher`` and ``kubectl wait`` judge a custom resource by
kstatus (sigs.k8s.io/cli-utils): ``Stalled=True`` is ``Failed``, ``Reconciling=True``
is ``InProgress``, and anything else at its current generation is ``Current``.
``Ready`` alone says nothing to them, so without this pair a parent that can never
become ready (its templates do not render, a child is refused or has failed, a
field is contested) reads as in progress and every tool waits out its timeout.

``mark`` decides the pair from the conditions a pass has already set, once:

- ``Ready`` True: neither is set.  kstatus reads a missing condition as False,
  and so does Flux, which deletes both once an object is ready; being absent,
  rather than False, also keeps the status of every ready parent exactly what it
  was before the pair existed, so an engine that starts writing them changes
  nothing, and writes nothing, for the parents that are fine.
- a dependent of ``Ready`` is False for a reason only a change from outside can
  clear (``stalls``, named by ``engine.core.decisions.status``): ``Stalled`` True,
  with that dependent's reason and message.
- else something is in flight (children applied but not ready, waiting for other
  children or for a referenced object, a rule that cannot be told yet):
  ``Reconciling`` True, with ``Ready``'s reason and message, which name it.

The two are never True together: kstatus takes whichever it meets first.  A spec
change the engine has not reconciled yet needs no condition: the parent's
``status.observedGeneration`` lags its ``metadata.generation`` until it has, and
kstatus reads that as in progress.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from engine.core.decisions import conditions

RECONCILING: Final = "Reconciling"
STALLED: Final = "Stalled"
TYPES: Final = (RECONCILING, STALLED)

# A dependent's type -> the reasons with which its False stalls the parent; None: any reason.
Stalls = Mapping[str, frozenset[str] | None]


def mark(manager: conditions.ConditionManager, root: str, stalls: Stalls) -> None:
    """Set ``Reconciling`` or ``Stalled`` on ``manager`` from its ``root`` and dependents (or neither)."""
    ready = manager.get(root)
    if ready is None or ready.get("status") == conditions.TRUE:
        return
    causes = (_stalling(manager, type, reasons) for type, reasons in stalls.items())
    cause = next((found for found in causes if found is not None), None)
    if cause is not None:
        manager.mark_true(STALLED, str(cause.get("reason")), str(cause.get("message") or ""))
    else:
        reason = str(ready.get("reason") or "Progressing")
        manager.mark_true(RECONCILING, reason, str(ready.get("message") or ""))


def _stalling(
    manager: conditions.ConditionManager, type: str, reasons: frozenset[str] | None
) -> dict[str, object] | None:
    found = manager.get(type)
    if found is None or found.get("status") != conditions.FALSE:
        return None
    return found if reasons is None or found.get("reason") in reasons else None


def stalled(status: Mapping[str, object]) -> bool:
    """Whether ``status`` (a parent's) says ``Stalled=True``."""
    found = conditions.find_in(_conditions(status), STALLED)
    return found is not None and found.get("status") == conditions.TRUE


def _conditions(status: Mapping[str, object]) -> list[Mapping[str, object]]:
    listed = status.get("conditions")
    return [c for c in listed if isinstance(c, Mapping)] if isinstance(listed, list) else []
