"""docs/mistakes.md, "Mistakes and what Stencil says", written from the table and lint's own output.

The page's body is text generated between two marker comments of docs/mistakes.md,
so what the page quotes is what ``stencil lint`` prints today; ``hack/mistakes-doc``
writes it and, with ``--check``, fails when the page says something else.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.mistakes import cases
from tests.mistakes.base import BASES, UNTAKEN
from tests.mistakes.table import CASES, MISTAKES, Case

BEGIN = "<!-- mistakes:begin -->"
END = "<!-- mistakes:end -->"

_INTRO = f"""\
<!-- Written by hack/mistakes-doc from the cases in tests/mistakes/; edit those, not this text. -->

Each entry below is one mistake, made in a small kind that lints clean without
it, and exactly what `stencil lint` prints about it (run from the project's
root). A mistake in a template or a status rule is shown twice: once where the
example goes, and once in a branch no example takes (inside
`{UNTAKEN}`, since no example sets `spec.canary`), which rendering
alone would never see. A mistake in an example, a CRD or a field of
`kind.yaml` has no branch, and is shown once. The same cases are the table
test `tests/unit/tools/cli/authoring/test_lint_catches_every_authoring_mistake.py`; where lint does
not catch a mistake, the entry says so.

The kind is `web`: a Deployment and a Service, with a CRD that checks what a
CR may say. The CEL mistake is made in the shipped Network kind instead.
"""

_WHERE = {
    "taken": "In a branch the examples take",
    "untaken": "In a branch no example takes",
    "once": "",
}


def section() -> str:
    """The text between the markers: the base kind, then one entry per mistake."""
    with tempfile.TemporaryDirectory() as temporary:
        said = {}
        for number, case in enumerate(CASES):
            root = Path(temporary).resolve() / str(number)
            root.mkdir()
            said[case.id] = cases.lint(case, root)
    parts = [_INTRO, _base()]
    for mistake in MISTAKES:
        parts.append(f"## {mistake.title}\n")
        for placement in mistake.placements:
            case = Case(mistake, placement)
            parts.append(_entry(case, said[case.id]))
    return "\n".join(parts)


def _base() -> str:
    files = "\n".join(f"`{name}`:\n\n```yaml\n{text}```\n" for name, text in BASES["web"]().items())
    return f"<details><summary>The files of the <code>web</code> kind</summary>\n\n{files}\n</details>\n"


def _entry(case: Case, said: cases.Said) -> str:
    placement = case.placement
    deleted = [f"`{e.file}` deleted" for e in placement.edits if e.new is None]
    written = [e.file for e in placement.edits if e.new is not None]
    where = _WHERE[placement.where]
    lead = ", ".join([*([where] if where else []), *deleted, *(f"`{file}`" for file in written[:1])])
    lead = lead[:1].upper() + lead[1:]
    if written:
        snippet = placement.shown if placement.shown.endswith("\n") else placement.shown + "\n"
        wrote = f"{lead}:\n\n```yaml\n{snippet}```\n"
    else:
        wrote = f"{lead}.\n"
    kind_dir = f"templates/{case.mistake.base}"
    output = f"`stencil lint {kind_dir}` exits {said.exit_code}:\n\n```\n{said.output.rstrip()}\n```\n"
    note = ""
    if placement.xfail:
        note = f"Not caught here: {placement.xfail}; only the coverage warning points at the branch.\n"
    return "\n".join(part for part in (wrote, output, note) if part)


def replaced(document: str, generated: str) -> str:
    """``document`` with the text between the markers replaced by ``generated``."""
    start, end = document.index(BEGIN) + len(BEGIN), document.index(END)
    return document[:start] + "\n" + generated.rstrip() + "\n" + document[end:]
