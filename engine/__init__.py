"""Stencil: a Kubernetes operator engine in which a custom-resource kind is a folder of templates.

The front door is small on purpose: load kinds, render them offline, run the
engine.  Everything else is an internal module that may change.
"""

from engine.core.model.errors import KindError, RenderError, StencilError
from engine.core.model.kinds import Kind, load_kind, load_kinds
from engine.core.templating.rendering import render
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
