"""A child the API server refuses for good: told from trouble that passes, said in one line, not
sent again until what is rendered changes.

Sending the same object again does not change the server's mind when it is invalid (422: an
immutable field, "pod updates may not change fields"), malformed (400), forbidden (403) or denied
by admission.  Retried at the queue's pace, such a child costs a dozen requests in seconds and
fills the parent's message with the server's dump of two Go structs.  ``Refusals`` is the pure
bookkeeping that ends it, per parent and child:

- a refusal is recorded with the hash of the object refused (``planning.HASH_ANNOTATION``'s
  value) and the uid of the live object it was sent against;
- while both are unchanged, the child is *held*: not sent, the parent keeps its verdict, and
  the reconcile asks to look again only when the back-off ends (``FIRST_WAIT``, doubling with
  every refusal of the same object up to ``MAX_WAIT``: an admin may grant a right or change a
  policy meanwhile);
- a new rendering (the parent's spec, the kind) or a new live object (deleted, made again) is
  sent at once;
- only the first refusal of an object is news (one Warning event).

``message`` is the one line a person reads: the status code and the first line of the
server's message, which names the object, the field and the reason.  It never reads the clock
(``now`` is handed in) nor the cluster.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.model import errors
from engine.core.model.identity import ChildId

# The API server's reasons (a Status's ``reason``) for a request that the same request again
# cannot change: the object is wrong, or the caller may not.
PERMANENT_API_REASONS = frozenset(
    {
        "Invalid",
        "BadRequest",
        "Forbidden",
        "MethodNotAllowed",
        "RequestEntityTooLarge",
        "UnsupportedMediaType",
        "NotAcceptable",
    }
)
PERMANENT_STATUSES = frozenset({400, 403, 405, 413, 415, 422})
CHILD_REFUSED = errors.Refused.reason

Version = tuple[str, str | None]  # (the refused object's hash, the uid of the live one it was sent against)

FIRST_WAIT = 30.0  # seconds before a refused object is sent again unchanged
MAX_WAIT = 300.0  # and the longest any waits
_MAX_LINE = 400


def permanent(error: errors.ApiError) -> bool:
    """Whether sending the same object again cannot change this answer."""
    reason = error.body.get("reason")
    return error.status in PERMANENT_STATUSES or (reason in PERMANENT_API_REASONS and error.status < 500)


def message(error: errors.ApiError) -> str:
    """The refusal in one line: ``422 Pod "web" is invalid: spec: Forbidden: pod updates may not …``."""
    first = next((line.strip() for line in str(error.message).splitlines() if line.strip()), "refused")
    line = f"{error.status} {first}"
    return line if len(line) <= _MAX_LINE else line[: _MAX_LINE - 1] + "…"


@dataclass
class _Record:
    version: Version
    error: errors.Refused
    times: int = 1
    retry_at: float = 0.0


@dataclass(frozen=True)
class Hold:
    """A child not sent because the server refused this very object: the error to report, and
    whether it is news (the first refusal, worth an event)."""

    child: ChildId
    error: errors.Refused
    news: bool


@dataclass
class Refusals:
    """The refused children of every parent (see the module docstring)."""

    _parents: dict[str, dict[ChildId, _Record]] = field(default_factory=dict)

    def refused(
        self, parent: str, child: ChildId, version: Version, error: errors.ApiError, now: float
    ) -> Hold:
        """Record that the server refused ``child`` at ``version``; the error to report."""
        records = self._parents.setdefault(parent, {})
        record = records.get(child)
        times = record.times + 1 if record is not None and record.version == version else 1
        wait = min(FIRST_WAIT * 2 ** (times - 1), MAX_WAIT)
        refused = errors.Refused(message(error), error, wait)
        records[child] = _Record(version, refused, times, now + wait)
        return Hold(child, refused, news=times == 1)

    def held(self, parent: str, child: ChildId, version: Version, now: float) -> Hold | None:
        """The refusal that holds ``child`` back now, or None: send it."""
        record = self._parents.get(parent, {}).get(child)
        if record is None or record.version != version or now >= record.retry_at:
            return None
        wait = record.retry_at - now
        return Hold(child, errors.Refused(record.error.message, record.error.refusal, wait), news=False)

    def accepted(self, parent: str, child: ChildId) -> None:
        """The server took ``child``: forget its refusal."""
        records = self._parents.get(parent)
        if records is not None and records.pop(child, None) is not None and not records:
            del self._parents[parent]

    def forget(self, parent: str) -> None:
        """Drop the records of a parent that is gone."""
        self._parents.pop(parent, None)
