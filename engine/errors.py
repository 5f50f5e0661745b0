"""Stencil's exceptions, one tree so callers can catch at the level they mean.

    StencilError
    ├── KindError               a kind folder or kind.yaml is invalid (terminal)
    ├── RenderError             a template failed to render into valid children (terminal)
    │   └── PlacementError      a child would land where the kind does not allow
    ├── ApiError                the API server answered with an error status
    │   ├── NotFound            404
    │   ├── Conflict            409 (field-manager conflict or already exists)
    │   ├── Gone                410 (a watch's resourceVersion is too old)
    │   └── Invalid             422 (the object failed validation)
    └── ChildConflict           a child's name is taken by an object this parent does not control

Errors a person reads carry ``file``, ``line`` and ``field`` where one is known,
and say them in ``str()`` as ``file:line: field: message``.  ``terminal`` tells the
controller whether retrying can help: a bad template stays bad until its input
changes, a 409 may pass.
"""

from __future__ import annotations

from typing import Any


class StencilError(Exception):
    """Base of every error Stencil raises on purpose."""

    terminal = False

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


class ChildConflict(StencilError):
    """A desired child's name is held by an object we must not take over."""

    reason = "ChildConflict"


class ApiError(StencilError):
    reason = "ApiError"

    def __init__(self, status: int, message: str, body: dict[str, Any] | None = None) -> None:
        self.status = status
        self.body = body or {}
        api_reason = self.body.get("reason")
        super().__init__(message, reason=api_reason or None)

    def __str__(self) -> str:
        return f"{self.status} {self.message}"


class NotFound(ApiError):
    pass


class Conflict(ApiError):
    pass


class Gone(ApiError):
    pass


class Invalid(ApiError):
    pass


def api_error(status: int, body: dict[str, Any] | None, fallback: str) -> ApiError:
    """The ApiError subclass for an HTTP status, with the server's message."""
    message = (body or {}).get("message") or fallback
    cls = {404: NotFound, 409: Conflict, 410: Gone, 422: Invalid}.get(status, ApiError)
    return cls(status, message, body)
