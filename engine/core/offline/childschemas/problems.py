"""Child problems: what a check of a rendered child reports, and how it names the field.

Both halves of the offline check of a child, its schema (``childschemas``) and the metadata
rules the server applies beyond it (``metadata``), report in these terms, so ``stencil
lint`` shows a problem the same way whichever found it: a path of keys and list indexes into
the child, a message, and whether the API server would refuse it (``error``) or it will only
break later (``warning``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from engine.core.model.crds import structural

FieldPath = tuple[str | int, ...]
Severity = Literal["error", "warning"]
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


@dataclass(frozen=True)
class Problem:
    """One thing the API server would refuse (``error``) or that will break later (``warning``)."""

    path: FieldPath  # keys and list indexes into the child
    message: str
    severity: Severity = "error"

    @property
    def field(self) -> str:
        """The path as an error message shows it: ``spec.template.spec.containers[0].volumes``,
        ``metadata.labels["app.kubernetes.io/name"]``."""
        text = ""
        for part in self.path:
            if isinstance(part, int):
                text += f"[{part}]"
            elif not _PLAIN_KEY.fullmatch(part):  # a label key such as app.kubernetes.io/name
                text += f"[{json.dumps(part)}]"
            else:
                text += f".{part}" if text else part
        return text or "(the object)"

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


def clip(value: Any) -> str:
    """``value`` as a message shows it, cut short."""
    return structural.shown(value, limit=60)
