"""Where what an example expects and what is live differ, field by field (pure).

Two things are compared this way: a golden file's children with the live ones,
whole, and an expected status with the parent's, as a subset (only what the file
names, conditions matched by type).  Each difference keeps the path of its field,
so that the caller can name the line of the file it comes from.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from engine.core.model.language import documents

ABSENT = object()  # the side of a difference where the field is not there


@dataclass(frozen=True)
class Difference:
    """One field where what was expected and what is live differ; ``ABSENT`` where there is none."""

    path: documents.FieldPath
    expected: Any
    live: Any

    @property
    def field(self) -> str:
        return dotted(self.path)

    def describe(self) -> str:
        return f"{self.field or '(whole object)'}: expected {_shown(self.expected)}, live {_shown(self.live)}"

    def change(self) -> str:
        """The difference as a change of one object over time, ``expected`` the earlier side."""
        return f"{self.field or '(whole object)'}: {_shown(self.expected)}, then {_shown(self.live)}"


def dotted(path: documents.FieldPath) -> str:
    """``("spec", "ports", 0, "port")`` as ``spec.ports[0].port``."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _shown(value: Any) -> str:
    if value is ABSENT:
        return "absent"
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 80 else text[:79] + "…"


def differences(
    expected: Any, live: Any, path: documents.FieldPath = (), *, subset: bool = False
) -> list[Difference]:
    """Where ``live`` differs from ``expected``, field by field.

    With ``subset``, only what ``expected`` names is compared (a map may have more keys
    live), and a list of conditions (maps with a ``type``) is matched by type, not position:
    that is how an expected status is read.
    """
    if isinstance(expected, dict) and isinstance(live, dict):
        found = []
        keys = list(expected) if subset else sorted(set(expected) | set(live), key=str)
        for key in keys:
            found += differences(
                expected.get(key, ABSENT), live.get(key, ABSENT), (*path, key), subset=subset
            )
        return found
    if isinstance(expected, list) and isinstance(live, list):
        if subset and expected and all(isinstance(item, dict) and "type" in item for item in expected):
            by_type = {item.get("type"): item for item in live if isinstance(item, dict)}
            found = []
            for index, item in enumerate(expected):
                found += differences(item, by_type.get(item["type"], ABSENT), (*path, index), subset=True)
            return found
        found = []
        for index in range(max(len(expected), len(live))):
            found += differences(
                expected[index] if index < len(expected) else ABSENT,
                live[index] if index < len(live) else ABSENT,
                (*path, index),
                subset=subset,
            )
        return found
    if expected is ABSENT and live is ABSENT:
        return []
    if expected == live and type(expected) is type(live):
        return []
    return [Difference(path, expected, live)]
