"""The ``stencil`` command line: the outermost layer, wiring options to the engine.

One module a command (or a family of them); each registers itself on ``main``
when imported here.
"""

from engine.tools.cli import cluster, crd, dev, lint, rbac, render, rollout, run, shards, test
from engine.tools.cli._common import main

__all__ = ["cluster", "crd", "dev", "lint", "main", "rbac", "render", "rollout", "run", "shards", "test"]
