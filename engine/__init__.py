"""Stencil: a Kubernetes operator engine in which a custom-resource kind is a folder of templates.

The front door is small on purpose: load kinds, render them offline, run the
engine.  Everything else is an internal module that may change.
"""

from typing import TYPE_CHECKING, Any

from engine.core.model.errors import KindError, RenderError, StencilError
from engine.core.model.kinds import Kind, load_kind, load_kinds
from engine.core.templating.rendering import render

if TYPE_CHECKING:
    from engine.runtime.serving.manager import Engine, Options

__all__ = [
    "Engine",
    "Kind",
    "KindError",
    "Options",
    "RenderError",
    "StencilError",
    "load_kind",
    "load_kinds",
    "render",
]


def __getattr__(name: str) -> Any:
    """``Engine`` and ``Options``, imported when first asked for: a program that only renders (and
    every ``import engine.core...``, which runs this module first) does not load the runtime, the
    Kubernetes client and HTTP with it."""
    if name in ("Engine", "Options"):
        from engine.runtime.serving import manager

        return getattr(manager, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
