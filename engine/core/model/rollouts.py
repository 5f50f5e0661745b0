"""How a changed kind reaches its parents: ``rollout:`` in kind.yaml.

    rollout:
      maxUnavailable: 10%      # or a count; parents moved and not yet Ready at once
      progressDeadline: 5m     # a moved parent not Ready by then stops the rollout

A kind that declares nothing moves every parent at once, as it always did
(``Policy`` is None).  What a rollout does with the policy is decided in
``engine.core.decisions.rollout``; this module only reads and checks it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from engine.core.model.documents import Document
from engine.core.model.errors import KindError

DEFAULT_MAX_UNAVAILABLE = "25%"  # Deployment's default for maxUnavailable
DEFAULT_PROGRESS_DEADLINE = 600.0  # seconds: Deployment's progressDeadlineSeconds

_PERCENT = re.compile(r"^(\d{1,3})%$")
_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")


@dataclass(frozen=True)
class Policy:
    """A kind's rollout: how many parents may be moving at once, and how long one may take."""

    max_unavailable: int | str = DEFAULT_MAX_UNAVAILABLE  # a count, or a percent of the parents
    progress_deadline: float = DEFAULT_PROGRESS_DEADLINE  # seconds

    def bound(self, parents: int) -> int:
        """How many of ``parents`` may be moving at once: a percent rounds down, but at least one
        moves, or a rollout over few parents could never start."""
        if isinstance(self.max_unavailable, int):
            return max(1, self.max_unavailable)
        percent = int(self.max_unavailable[:-1])
        return max(1, math.floor(parents * percent / 100))


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
    return Policy(unavailable, seconds)


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
