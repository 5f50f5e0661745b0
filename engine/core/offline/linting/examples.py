"""The example checks: each example rendered as the engine would, its children checked as the server would.

Each example parent is rendered with a line tracer on the kind's compiled
templates (``render_traced``), so the same renders give the children to check
and the template lines they ran, from which ``branches`` learns the branches
no example takes.  Each child is then checked as the API server would check it
(``check_children``, by ``childschemas``), and a problem is reported at the
template line that wrote the field.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import FrameType
from typing import Any

from engine.core import door
from engine.core.model import kinds
from engine.core.model.errors import StencilError
from engine.core.offline import admission, childschemas
from engine.core.offline.linting.findings import Finding
from engine.core.templating import rendering


@dataclass(frozen=True)
class Traced:
    """What rendering some parents gave: the children, the template lines run, and the failures."""

    located: tuple[rendering.Located, ...]  # each child with the template line of each of its fields
    executed: frozenset[tuple[str, int]]  # (template file, line of its compiled Python code)
    findings: tuple[Finding, ...]
    renders: tuple[tuple[rendering.Located, ...], ...] = ()  # ``located`` by parent, checked as siblings
    paths: tuple[frozenset[tuple[str, int]], ...] = ()  # the lines each parent's render ran, in order

    @property
    def children(self) -> list[dict[str, Any]]:
        return [one.child for one in self.located]


def render_traced(
    kind: kinds.Kind,
    parents: Sequence[tuple[str, dict[str, Any]]],
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    given: Callable[[str], Sequence[dict[str, Any]]] = lambda _where: (),
) -> Traced:
    """Render each ``(where, parent)`` as the engine would, noting which lines of the templates ran;
    its references read the objects ``given(where)`` (its fixtures and ``--observed``).

    The tracer is on only while the templates run (``rendering.render_located``'s
    ``trace``), and only frames of this kind's compiled templates report their lines,
    so the rest of the render runs at full speed.  A parent that fails to render is a
    finding naming ``where``.
    """
    files = frozenset(str(t.path) for t in kind.templates)
    executed: set[tuple[str, int]] = set()
    path: set[tuple[str, int]] = set()  # the render's own lines: not a template module's first load

    def lines(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            line = (frame.f_code.co_filename, frame.f_lineno)
            executed.add(line)
            if frame.f_code.co_name != "<module>":
                path.add(line)
        return lines

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return lines if frame.f_code.co_filename in files else None

    renders: list[tuple[rendering.Located, ...]] = []
    findings: list[Finding] = []
    paths: list[frozenset[tuple[str, int]]] = []
    for where, parent in parents:
        path.clear()
        try:
            made, _ = door.offline(kind, parent, (), given(where), is_namespaced=is_namespaced, trace=calls)
            renders.append(made.located)
        except StencilError as error:
            findings.append(render_failure(kind, error, f"rendering the example at {where}"))
        finally:
            paths.append(frozenset(path))
    located = tuple(one for render in renders for one in render)
    return Traced(located, frozenset(executed), tuple(findings), tuple(renders), tuple(paths))


def render_failure(kind: kinds.Kind, error: StencilError, context: str) -> Finding:
    failed = Finding.of_error(error, "render", default_file=str(kind.directory))
    return dataclasses.replace(failed, message=f"{failed.message} ({context})")


# -- would the API server take the children ----------------------------------------------------------


def check_children(
    located: Iterable[rendering.Located], crds: admission.OfflineCrds, *, context: str = ""
) -> list[Finding]:
    """What the API server would refuse in each rendered child, at the template line that wrote it: a
    child of a kind it would not serve (``OfflineCrds.unserved``) at its apiVersion, any other by its
    schema."""
    findings: list[Finding] = []
    for one in located:
        refused = crds.unserved([one])
        if refused:
            unserved = Finding.of_error(refused[0], "unserved")
            findings.append(dataclasses.replace(unserved, message=unserved.message + context))
            continue
        for problem in childschemas.check(one.child, crds):
            file, line = one.where(problem.path)
            message = f"{one.child.get('kind')} {problem}{context}"
            findings.append(Finding(file, line, None, problem.severity, message, "child-schema"))
    return findings
