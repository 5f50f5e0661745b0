"""Stencil's exceptions, one tree so callers can catch at the level they mean.

    StencilError
    ├── KindError               a kind folder or kind.yaml is invalid (terminal)
    ├── RenderError             a template failed to render into valid children (terminal)
    │   ├── PlacementError      a child would land where the kind does not allow
    │   ├── TooManyChildren     more children than a parent may have (nothing applied or pruned)
    │   ├── NotServed           a child's kind the server does not serve (until a CRD is installed)
    │   └── ReferenceForbidden  a reference its reader may not read (until the namespace grants it)
    ├── ApiError                the API server answered with an error status
    │   ├── NotFound            404
    │   ├── Conflict            409 (field-manager conflict, a stale read, a failed precondition)
    │   │   └── AlreadyExists   409 (a create found the name taken)
    │   ├── Gone                410 (a watch's resourceVersion is too old)
    │   ├── Invalid             422 (the object failed validation)
    │   └── TooManyRequests     429 (priority and fairness turned the request away)
    ├── Refused                 a child the API server refused for good (invalid, forbidden, denied)
    └── Unreachable             no answer at all: the connection failed

Errors a person reads carry ``file``, ``line`` and ``field`` where one is known,
and say them in ``str()`` as ``file:line: field: message``.

``terminal`` tells the controller whether retrying can help: a bad template stays
bad until its input changes, so it is not retried; a 409 may pass.  ``retry_after``
is set on errors that are nobody's fault but the server's load or absence
(``TooManyRequests``, ``Unreachable``, a 5xx): the controller waits that long and
tries again without counting a failure against the parent.
"""

from __future__ import annotations

from typing import Any


class StencilError(Exception):
    """Base of every error Stencil raises on purpose."""

    terminal = False
    retry_after: float | None = None

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        line: int | None = None,
        field: str | None = None,
        reason: str | None = None,
    ) -> None:
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        if reason is not None:
            self.reason = reason
        super().__init__(str(self))

    reason = "Error"

    def location(self) -> str:
        where = self.file or ""
        if self.file and self.line is not None:
            where += f":{self.line}"
        return where

    def __str__(self) -> str:
        parts = [p for p in (self.location(), self.field) if p]
        return ": ".join([*parts, self.message])


class KindError(StencilError):
    terminal = True
    reason = "InvalidKind"


class RenderError(StencilError):
    terminal = True
    reason = "RenderFailed"


class PlacementError(RenderError):
    reason = "PlacementRefused"


class TooManyChildren(RenderError):
    """A parent renders more children than it may have: nothing of it is applied or pruned."""

    reason = "TooManyChildren"


class NotServed(RenderError):
    """A child of a kind the API server does not serve, at the template line of its apiVersion.
    Not retried at the queue's growing pace, but looked at again after ``retry_after``, when
    discovery may ask the server again (``kube.DISCOVERY_MISS_TTL``): installing a CRD serves it."""

    terminal = False
    retry_after = 5.0
    reason = "KindNotServed"


class ReferenceForbidden(RenderError):
    """A reference the account it is read as may not read (``engine.runtime.cluster.access``), at
    the reference's line in kind.yaml: the parent's namespace has not granted it.  Looked at again
    after ``retry_after``, as a grant is not something a watch tells of."""

    terminal = False
    retry_after = 10.0
    reason = "ReferenceForbidden"


class ApiError(StencilError):
    reason = "ApiError"

    def __init__(
        self, status: int, message: str, body: dict[str, Any] | None = None, retry_after: float | None = None
    ) -> None:
        self.status = status
        self.body = body or {}
        api_reason = self.body.get("reason")
        super().__init__(message, reason=api_reason or None)
        if retry_after is None and status >= 500:
            retry_after = _SERVER_ERROR_RETRY
        self.retry_after = retry_after

    def __str__(self) -> str:
        return f"{self.status} {self.message}"


class NotFound(ApiError):
    pass


class Conflict(ApiError):
    pass


class AlreadyExists(Conflict):
    pass


class Gone(ApiError):
    pass


class Invalid(ApiError):
    pass


class TooManyRequests(ApiError):
    """Turned away by API Priority and Fairness; ``retry_after`` is the server's ``Retry-After``."""

    def __init__(
        self, status: int, message: str, body: dict[str, Any] | None = None, retry_after: float | None = None
    ) -> None:
        super().__init__(status, message, body, retry_after if retry_after is not None else 1.0)


class Refused(StencilError):
    """A child the API server refuses whatever the engine retries (422, 403, 400, a denial by
    admission), in one line: the server's reason and the field, not the struct it dumps.  Sent
    again only when what is rendered changes, or after ``retry_after`` (a slow back-off: an admin
    may grant a right or change a policy meanwhile)."""

    reason = "ChildRefused"

    def __init__(self, message: str, refusal: ApiError, retry_after: float) -> None:
        super().__init__(message)
        self.refusal = refusal
        self.retry_after = retry_after


class Unreachable(StencilError):
    """The API server did not answer (refused, reset, timed out): it is down or restarting."""

    reason = "Unreachable"
    retry_after = 1.0


# A 5xx is the server's trouble (etcd timing out, a restart under way): try again soon.
_SERVER_ERROR_RETRY = 1.0


def api_error(
    status: int, body: dict[str, Any] | None, fallback: str, retry_after: float | None = None
) -> ApiError:
    """The ApiError subclass for an HTTP status, with the server's message."""
    message = (body or {}).get("message") or fallback
    cls = {404: NotFound, 409: Conflict, 410: Gone, 422: Invalid, 429: TooManyRequests}.get(status, ApiError)
    if cls is Conflict and (body or {}).get("reason") == "AlreadyExists":
        cls = AlreadyExists
    return cls(status, message, body, retry_after)
