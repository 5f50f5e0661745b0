"""`rendering.render_located(..., trace=...)` (how `stencil lint` learns which template lines ran)
runs only the templates' own steps under the trace function: the rest of the render (reading the
rendered YAML, placing the children) runs untraced, since a trace function slows every Python call
made while it is set.  The lines it sees are the same either way."""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

from engine.core.model import kinds
from engine.core.templating import rendering

FOLDER = Path(__file__).resolve().parents[4] / "templates" / "deploywebservice"
PARENT = {
    "apiVersion": "operator.wujiuye.com/v1beta1",
    "kind": "DeployWebService",
    "metadata": {"name": "web", "namespace": "default", "uid": "u-1"},
    "spec": {"image": "nginx:1.25", "replicas": 2, "exposed_port": 8080},
}


def test_only_template_frames_and_what_they_call_are_traced() -> None:
    kind = kinds.load_kind(FOLDER)
    templates = {str(template.path) for template in kind.templates}
    called: list[str] = []
    lines: set[tuple[str, int]] = set()

    def on_line(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line":
            lines.add((frame.f_code.co_filename, frame.f_lineno))
        return on_line

    def on_call(frame: FrameType, event: str, arg: Any) -> Any:
        called.append(frame.f_code.co_filename)
        return on_line if frame.f_code.co_filename in templates else None

    before = sys.gettrace()  # None, or a coverage tool's or debugger's tracer
    children = rendering.render_located(kind, dict(PARENT), [], trace=on_call)

    assert [one.child["kind"] for one in children] == ["Deployment", "Service"]
    assert templates <= set(called)
    assert {file for file, _ in lines} == templates
    assert not [file for file in called if "/yaml/" in file or file.endswith(("placement.py", "places.py"))]
    assert sys.gettrace() is before  # restored after every step


def test_a_traced_render_gives_the_children_an_untraced_one_gives() -> None:
    kind = kinds.load_kind(FOLDER)
    traced = rendering.render_located(kind, dict(PARENT), [], trace=lambda frame, event, arg: None)
    assert [one.child for one in traced] == rendering.render(kind, dict(PARENT), [])
