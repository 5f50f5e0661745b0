"""What ``stencil lint`` reports: a ``Finding``, one problem where it is, as a value.

Every check of a kind folder (the modules ``lint_*`` beside this one) gives its
problems as findings, never raised, so one run reports them all; the front door
``linting`` gathers the checks, and ``engine.tools.linter`` reads the folders and
CRDs and shows what they find.  A module of its own so that each check can name
it without importing the others.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from engine.core.model.errors import StencilError

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One problem, where it is: ``check`` is a short id such as ``unknown-filter``."""

    file: str
    line: int | None
    column: int | None
    severity: Severity
    message: str
    check: str

    def __str__(self) -> str:
        where = self.file
        for part in (self.line, self.column if self.line is not None else None):
            if part is not None:
                where += f":{part}"
        return f"{where}: {self.severity}: {self.message}"

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.file, self.line or 0, self.column or 0, self.severity, self.message)

    def as_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def of_error(cls, error: StencilError, check: str, *, default_file: str = "") -> Finding:
        """A finding for an error raised by the loader, an admission or a render."""
        message = f"{error.field}: {error.message}" if error.field else error.message
        return cls(error.file or default_file, error.line, None, "error", message, check)
