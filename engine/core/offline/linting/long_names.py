"""The long-name renders: each example rendered again under longer names, to find what its children break.

``check_long_names`` bisects between the example's own name's length and the
longest its CRD allows, rendering the example under a name of each length it
tries; each length is rendered once, and only what a longer name breaks that the
example's own does not is said, with the bound the CRD should set.  ``one_per_path`` keeps one
parent of those whose renders ran the same lines of the templates: thousands of CRs given to
check beside the examples are renamed only where they take a way through the templates that
no parent before them took.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

from engine.core import door
from engine.core.model import kinds
from engine.core.model.errors import StencilError
from engine.core.offline import admission, childschemas
from engine.core.offline.linting.examples import check_children, render_failure
from engine.core.offline.linting.findings import Finding

LONG_NAME = "long-name"  # the check of what a parent with the longest name its CRD allows would break
_LONG_NAME_LETTER = "x"
# The long name as messages quote it, whole or clipped: shown as `{name}`, as the template writes it.
_LONG_NAME = re.compile(rf"\"?{_LONG_NAME_LETTER}{{16,}}…?")


def check_long_names(
    kind: kinds.Kind,
    parents: Sequence[tuple[str, dict[str, Any]]],
    crds: admission.OfflineCrds,
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    given: Callable[[str], Sequence[dict[str, Any]]] = lambda _where: (),
) -> list[Finding]:
    """What the children of each parent break once its name is longer, at the shortest name that breaks it
    (its references reading ``given(where)``, as ``render_traced``'s do).

    Children's names and labels are made from the parent's, so one that is fine
    for the examples' short names can overflow for a name the CRD accepts, and
    where it overflows depends on the child's kind (``childschemas.NAME_RULES``: a
    Job's name at 63 characters, a CronJob's at 52, a ConfigMap's at 253).  So
    each parent is renamed to names of one letter, and a bisection between its own
    name's length and the longest its CRD allows finds the longest name whose
    children break nothing the example's own children do not; what one letter more
    breaks is reported, with the bound the CRD should set.  What is found is a
    warning: no parent is refused yet.
    """
    longest = childschemas.longest_name(crds.schemas.get((kind.api_version, kind.kind)))
    findings: list[Finding] = []
    for where, parent in parents:
        renamed = functools.partial(_renamed, kind, (where, parent, given(where)), crds, is_namespaced)
        own = min(len(parent["metadata"]["name"]), longest)
        findings += _first_overflow(functools.cache(renamed), own, longest)
    return findings


def one_per_path(
    parents: Sequence[tuple[str, dict[str, Any]]], paths: Sequence[frozenset[tuple[str, int]]]
) -> list[tuple[str, dict[str, Any]]]:
    """The first of the ``parents`` whose render ran each set of template lines (``paths``, as
    ``render_traced`` gives them, one a parent).  The same branches build the children's names
    from the parent's in the same way, so renaming the others finds the same overflows, at a bound
    that differs only by what their own values add to a name (each is still checked under its
    own name)."""
    seen: set[frozenset[tuple[str, int]]] = set()
    kept = []
    for parent, path in zip(parents, paths, strict=True):
        if path not in seen:
            seen.add(path)
            kept.append(parent)
    return kept


def _renamed(
    kind: kinds.Kind,
    example: tuple[str, dict[str, Any], Sequence[dict[str, Any]]],
    crds: admission.OfflineCrds,
    is_namespaced: Callable[[str, str], bool] | None,
    length: int,
) -> frozenset[Finding]:
    """What the children of the ``example`` parent (where, parent, the objects given it) break when
    it is named with ``length`` letters."""
    where, parent, objects = example
    named = {**parent, "metadata": {**parent["metadata"], "name": _LONG_NAME_LETTER * length}}
    try:
        made, _ = door.offline(kind, named, (), objects, is_namespaced=is_namespaced)
    except StencilError as error:
        return frozenset([render_failure(kind, error, f"the example at {where}")])
    return frozenset(check_children(made.located, crds))


def _first_overflow(renamed: Callable[[int], frozenset[Finding]], own: int, longest: int) -> list[Finding]:
    """What a parent named with one letter more than the longest name that breaks nothing new breaks.

    ``renamed(n)`` is what the children of the parent named with ``n`` letters
    break; nothing is new at ``own`` letters, the example's own length.
    """
    already = {(f.file, f.line) for f in renamed(own)}

    def breaks(length: int) -> list[Finding]:
        return [f for f in renamed(length) if (f.file, f.line) not in already]

    if not breaks(longest):
        return []
    fits, overflows = own, longest  # `fits` letters break nothing new, `overflows` letters do
    while overflows - fits > 1:
        middle = (fits + overflows) // 2
        fits, overflows = (fits, middle) if breaks(middle) else (middle, overflows)
    context = (
        f" (for a parent named with {overflows} characters, which its CRD allows up to {longest}: "
        f"bound the name with self.metadata.name.size() <= {fits})"
    )
    return sorted(
        (
            dataclasses.replace(
                f, severity="warning", message=_LONG_NAME.sub("{name}", f.message) + context, check=LONG_NAME
            )
            for f in breaks(overflows)
        ),
        key=lambda finding: finding.sort_key,
    )
