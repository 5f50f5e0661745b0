"""``metav1.Condition`` done right: updated in place by type, honest transition times, a root.

The seed operators appended a fresh condition on every reconcile and stamped
``lastTransitionTime`` with the current time whatever happened, so a parent's
status grew without end and changed on every pass.  Here a condition is a frozen
value; ``set_condition`` replaces the entry of the same ``type`` where it stands
and moves ``lastTransitionTime`` only when ``status`` changes, so computing the
same conditions twice yields the same list and the controller can skip the write.

``ConditionSet`` is the kro/knative pattern: a root condition (``Ready``) that is
never set by hand but recomputed from named dependents, each set through an
intent-named method (``mark_true``/``mark_false``/``mark_unknown``) instead of raw
dict writes.  A set may also hold conditions *beside* the root (kstatus's
``Reconciling`` and ``Stalled``): kept and updated in place like the others, read
from the root rather than feeding it, and present only while a pass marks them.
Everything here is pure; time comes in as an RFC 3339 string.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from engine.core.model.errors import StencilError

TRUE = "True"
FALSE = "False"
UNKNOWN = "Unknown"
STATUSES = (TRUE, FALSE, UNKNOWN)

Status = Literal["True", "False", "Unknown"]


def timestamp(moment: datetime.datetime) -> str:
    """``moment`` as the API server writes a ``metav1.Time``: UTC, whole seconds, ``Z``."""
    return moment.astimezone(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# The API server's own validation of metav1.Condition (apimachinery's
# ValidateConditions): a reason it would refuse must be caught before we write.
_REASON = re.compile(r"^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$")
_TYPE = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
    r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$"
)
_MAX_REASON = 1024
_MAX_TYPE = 316
_MAX_MESSAGE = 32768


@dataclass(frozen=True)
class Condition:
    """One entry of ``status.conditions``, validated as the API server would."""

    type: str
    status: str
    reason: str
    message: str = ""
    observed_generation: int | None = None
    last_transition_time: str = ""

    def __post_init__(self) -> None:
        if not is_valid_type(self.type):
            raise ValueError(f"invalid condition type {self.type!r}")
        if self.status not in STATUSES:
            raise ValueError(f"condition {self.type}: status must be one of {STATUSES}, not {self.status!r}")
        if len(self.reason) > _MAX_REASON or not _REASON.match(self.reason):
            raise ValueError(f"condition {self.type}: reason must be CamelCase, not {self.reason!r}")
        if len(self.message) > _MAX_MESSAGE:
            raise ValueError(f"condition {self.type}: message longer than {_MAX_MESSAGE} characters")

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "status": self.status}
        if self.observed_generation is not None:
            out["observedGeneration"] = self.observed_generation
        out["lastTransitionTime"] = self.last_transition_time
        out["reason"] = self.reason
        out["message"] = self.message
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Condition:
        generation = data.get("observedGeneration")
        return cls(
            type=str(data.get("type", "")),
            status=str(data.get("status", "")),
            reason=str(data.get("reason", "")),
            message=str(data.get("message") or ""),
            observed_generation=int(generation) if generation is not None else None,
            last_transition_time=str(data.get("lastTransitionTime") or ""),
        )


def is_valid_type(type: str) -> bool:
    """Whether the API server would accept ``type`` as a condition type."""
    return len(type) <= _MAX_TYPE and _TYPE.match(type) is not None


def reason_from(text: str, default: str) -> str:
    """``text`` made into a valid CamelCase reason (``"not ready"`` -> ``"NotReady"``), else ``default``."""
    if _REASON.match(text) and len(text) <= _MAX_REASON:
        return text
    words = re.findall(r"[A-Za-z0-9]+", text)
    candidate = "".join(word[:1].upper() + word[1:] for word in words).lstrip("0123456789")
    return candidate[:_MAX_REASON] if candidate else default


MAX_MESSAGE = 4096  # a condition message is read in `kubectl describe`, not a log


def clip(message: str) -> str:
    """``message`` cut to what a condition's message holds."""
    return message if len(message) <= MAX_MESSAGE else message[: MAX_MESSAGE - 1] + "…"


def reason_of(error: StencilError, default: str) -> str:
    """The reason an error gives, as a condition's reason, else ``default``."""
    return reason_from(str(error.reason or ""), default)


def of(obj: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The well-formed entries of ``obj.status.conditions`` (an empty list when there are none)."""
    status = obj.get("status")
    found = status.get("conditions") if isinstance(status, Mapping) else None
    if not isinstance(found, list):
        return []
    return [entry for entry in found if isinstance(entry, dict)]


def find(obj: Mapping[str, Any], type: str) -> dict[str, Any] | None:
    """The condition of ``type`` on ``obj``, or ``None``."""
    return find_in(of(obj), type)


def find_in(conditions: Iterable[Mapping[str, Any]], type: str) -> dict[str, Any] | None:
    for entry in conditions:
        if entry.get("type") == type:
            return dict(entry)
    return None


def is_true(obj: Mapping[str, Any], type: str) -> bool:
    found = find(obj, type)
    return found is not None and found.get("status") == TRUE


def set_condition(conditions: Sequence[Mapping[str, Any]], new: Condition, now: str) -> list[dict[str, Any]]:
    """``conditions`` with ``new`` in place of the entry of its type (appended when absent).

    ``lastTransitionTime`` is kept from the old entry while ``status`` is unchanged
    and becomes ``now`` when it changes; the order of the list is kept.
    """
    result: list[dict[str, Any]] = []
    replaced = False
    for entry in conditions:
        if entry.get("type") != new.type:
            result.append(dict(entry))
        elif not replaced:
            kept = entry.get("lastTransitionTime") if entry.get("status") == new.status else None
            result.append(_stamped(new, kept or now))
            replaced = True
        # A second entry of the same type (a seed-style duplicate) is dropped.
    if not replaced:
        result.append(_stamped(new, now))
    return result


def _stamped(condition: Condition, when: str) -> dict[str, Any]:
    out = condition.to_dict()
    out["lastTransitionTime"] = when
    return out


@dataclass(frozen=True)
class ConditionSet:
    """A root condition computed from its dependents: ``ConditionSet("Ready", ("A", "B"))``."""

    root: str
    dependents: tuple[str, ...]
    true_reason: str = "Ready"
    beside: tuple[str, ...] = ()  # set by hand, not part of the root; dropped when a pass leaves them

    def manage(
        self, existing: Sequence[Mapping[str, Any]], *, generation: int | None, now: str
    ) -> ConditionManager:
        return ConditionManager(self, existing, generation=generation, now=now)


class ConditionManager:
    """Sets a ``ConditionSet``'s dependents on top of existing conditions; the root follows.

    Conditions of types outside the set are dropped: ``status.conditions`` of a
    parent is Stencil's own, and a custom condition removed from ``kind.yaml``
    must not linger with a stale status.  So is a condition ``beside`` the root
    that this pass did not mark: it holds only while something says it does.
    """

    def __init__(
        self,
        condition_set: ConditionSet,
        existing: Sequence[Mapping[str, Any]],
        *,
        generation: int | None,
        now: str,
    ) -> None:
        self._set = condition_set
        self._generation = generation
        self._now = now
        known = {condition_set.root, *condition_set.dependents, *condition_set.beside}
        self._conditions = [dict(c) for c in existing if c.get("type") in known]
        self._marked: set[str] = set()

    def mark_true(self, type: str, reason: str, message: str = "") -> None:
        self._mark(type, TRUE, reason, message)

    def mark_false(self, type: str, reason: str, message: str) -> None:
        self._mark(type, FALSE, reason, message)

    def mark_unknown(self, type: str, reason: str, message: str) -> None:
        self._mark(type, UNKNOWN, reason, message)

    def get(self, type: str) -> dict[str, Any] | None:
        return find_in(self.to_list(), type)

    def to_list(self) -> list[dict[str, Any]]:
        """Every condition of the set, the root recomputed from the dependents."""
        left = set(self._set.beside) - self._marked
        conditions = [c for c in self._conditions if c.get("type") not in left]
        for type in self._set.dependents:
            if type not in self._marked:
                # Never marked in this pass: what it said before is not evidence any more.
                conditions = set_condition(
                    conditions,
                    Condition(type, UNKNOWN, "Pending", "not evaluated yet", self._generation),
                    self._now,
                )
        root = self._root(conditions)
        if find_in(conditions, root.type) is None:
            # The root leads a list it is new to; otherwise it keeps its place.
            return [_stamped(root, self._now), *conditions]
        return set_condition(conditions, root, self._now)

    def _mark(self, type: str, status: str, reason: str, message: str) -> None:
        if type not in self._set.dependents and type not in self._set.beside:
            raise ValueError(f"{type} is not a dependent of {self._set.root} nor beside it")
        new = Condition(type, status, reason, message, self._generation)
        self._conditions = set_condition(self._conditions, new, self._now)
        self._marked.add(type)

    def _root(self, conditions: Sequence[Mapping[str, Any]]) -> Condition:
        dependents = [find_in(conditions, type) or {} for type in self._set.dependents]
        blocking = next((c for c in dependents if c.get("status") == FALSE), None)
        status = FALSE
        if blocking is None:
            blocking = next((c for c in dependents if c.get("status") != TRUE), None)
            status = UNKNOWN
        if blocking is None:
            return Condition(self._set.root, TRUE, self._set.true_reason, "", self._generation)
        return Condition(
            self._set.root,
            status,
            str(blocking.get("reason") or "Unknown"),
            str(blocking.get("message") or ""),
            self._generation,
        )
