"""``stencil test``: a kind author's end-to-end test, every example run on a real local control plane.

For each example of each kind (``examples/*.yaml``) the run applies it into a
namespace of its own, waits until its parent is Ready at its current generation
(or, when ``tests/<example>.status.yaml`` exists, until the parent's status holds
what that file says) and has stayed so through a settling window in which the
engine wrote nothing, and compares the live children with
``tests/<example>.children.yaml``; ``update`` writes that file instead, from two
runs of the example, with ``${ANY}`` where they differ.

The package is in six parts, read in this order: ``examples`` (what is run: the
kinds chosen, their examples and companion files), ``golden`` with ``comparing``
(the golden form of a child, the ``${ANY}`` marks, reading, comparing and writing
the file; pure but for the file itself), ``settling`` (whether an example held
through its window, from the looks at it; pure), ``report`` (each example's
outcome and what is printed of it), ``runs`` (an example applied and waited for,
and the outcome it ends with), and ``plane`` (the shell: the local control plane,
the engine on it, the examples applied and waited for, everything torn down again).
The names below are what the command and the tests use.
"""

from engine.tools.kindtest.comparing import Difference, differences, dotted
from engine.tools.kindtest.examples import FIXTURES, TESTS_DIR, Example, UsageError, crds_dirs, load
from engine.tools.kindtest.golden import (
    ANY_PLACEHOLDER,
    HASH_PLACEHOLDER,
    NAMESPACE_PLACEHOLDER,
    UID_PLACEHOLDER,
    applied_fields,
    compare_children,
    golden_form,
    golden_text,
    marked,
    matches,
    normalised,
    owned,
    proposed,
)
from engine.tools.kindtest.plane import POLL, run
from engine.tools.kindtest.report import Outcome, Report

__all__ = [
    "ANY_PLACEHOLDER",
    "FIXTURES",
    "HASH_PLACEHOLDER",
    "NAMESPACE_PLACEHOLDER",
    "POLL",
    "TESTS_DIR",
    "UID_PLACEHOLDER",
    "Difference",
    "Example",
    "Outcome",
    "Report",
    "UsageError",
    "applied_fields",
    "compare_children",
    "crds_dirs",
    "differences",
    "dotted",
    "golden_form",
    "golden_text",
    "load",
    "marked",
    "matches",
    "normalised",
    "owned",
    "proposed",
    "run",
]
