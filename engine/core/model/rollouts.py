"""How a changed kind reaches its parents: ``rollout:`` in kind.yaml.

    rollout:
      maxUnavailable: 10%      # or a count; parents moved and not yet Ready at once
      progressDeadline: 5m     # a moved parent not Ready by then counts as failed
      maxFailures: 10%         # or a count; failed parents the rollout goes on past
      maxFailedNamespaces: 1   # namespaces with a failed parent the rollout goes on past

A kind that declares nothing moves every parent at once, as it always did
(``Policy`` is None).  What a rollout does with the policy is decided in
``engine.core.decisions.coordination.rollout``; this module only reads and checks it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engine.core.model.errors import KindError
from engine.core.model.language.documents import Document

DEFAULT_MAX_UNAVAILABLE = "25%"  # Deployment's default for maxUnavailable
DEFAULT_PROGRESS_DEADLINE = 600.0  # seconds: Deployment's progressDeadlineSeconds
# A rollout goes on past failed parents up to a budget, so that one tenant's broken parent stops
# nobody else's: by default it pauses once failures are in more than one namespace (a change
# that breaks every parent breaks them in every namespace it reaches), or once more than a tenth
# of the parents failed (a change broken for the parents of one namespace alone).
DEFAULT_MAX_FAILURES = "10%"
DEFAULT_MAX_FAILED_NAMESPACES = 1

_PERCENT = re.compile(r"^(\d{1,3})%$")
_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")


@dataclass(frozen=True)
class Policy:
    """A kind's rollout: how many parents may be moving at once, how long one may take, and how
    many may fail (in how many namespaces) before the rollout pauses."""

    max_unavailable: int | str = DEFAULT_MAX_UNAVAILABLE  # a count, or a percent of the parents
    progress_deadline: float = DEFAULT_PROGRESS_DEADLINE  # seconds
    max_failures: int | str = DEFAULT_MAX_FAILURES  # a count, or a percent of the parents
    max_failed_namespaces: int = DEFAULT_MAX_FAILED_NAMESPACES

    def bound(self, parents: int) -> int:
        """How many of ``parents`` may be moving at once: a percent rounds down, but at least one
        moves, or a rollout over few parents could never start."""
        if isinstance(self.max_unavailable, int):
            return max(1, self.max_unavailable)
        percent = int(self.max_unavailable[:-1])
        return max(1, math.floor(parents * percent / 100))

    def failure_budget(self, parents: int) -> int:
        """How many of ``parents`` may have failed with the rollout going on: a count as given (0:
        the first failure pauses it), a percent rounded down but at least one."""
        if isinstance(self.max_failures, int):
            return max(0, self.max_failures)
        return max(1, math.floor(parents * int(self.max_failures[:-1]) / 100))


def load(document: Document) -> Policy | None:
    """kind.yaml's ``rollout:`` (already checked against the kind schema), or None if it has none."""
    data = document.data.get("rollout")
    if data is None:
        return None
    unavailable = data.get("maxUnavailable", DEFAULT_MAX_UNAVAILABLE)
    if isinstance(unavailable, str) and not _PERCENT.match(unavailable):
        raise _error(document, "maxUnavailable", f"{unavailable!r} is neither a count nor a percent like 10%")
    if isinstance(unavailable, str) and int(unavailable[:-1]) > 100:
        raise _error(document, "maxUnavailable", f"{unavailable!r} is more than 100%")
    deadline = data.get("progressDeadline", DEFAULT_PROGRESS_DEADLINE)
    seconds = float(deadline) if isinstance(deadline, (int, float)) else duration(str(deadline))
    if seconds is None or seconds <= 0:
        raise _error(document, "progressDeadline", f"{deadline!r} is not a duration like 90s, 5m or 1h30m")
    failures = data.get("maxFailures", DEFAULT_MAX_FAILURES)
    if isinstance(failures, str) and (not _PERCENT.match(failures) or int(failures[:-1]) > 100):
        raise _error(document, "maxFailures", f"{failures!r} is neither a count nor a percent up to 100%")
    namespaces = data.get("maxFailedNamespaces", DEFAULT_MAX_FAILED_NAMESPACES)
    return Policy(unavailable, seconds, failures, namespaces)


def duration(text: str) -> float | None:
    """Seconds in a duration written as Kubernetes writes them (``90s``, ``5m``, ``1h30m``), or None."""
    found = _DURATION.match(text)
    if not text or found is None:
        return None
    hours, minutes, seconds = (int(part or 0) for part in found.groups())
    return float(hours * 3600 + minutes * 60 + seconds)


def _error(document: Document, key: str, message: str) -> KindError:
    error = document.error(message, ("rollout", key))
    assert isinstance(error, KindError)
    return error
