"""The ``stencil`` command line: the outermost layer, wiring options to the engine.

One module a command (or a family of them); each registers itself on ``main``
when imported here.  ``kubectl_plugin`` is the same group as the ``kubectl-stencil``
command, which kubectl runs for ``kubectl stencil ...`` when it is on PATH.
"""

from engine.tools.cli import (
    argocd,
    bundle,
    changes,
    cluster,
    crd,
    dev,
    lint,
    pictures,
    rbac,
    render,
    run,
    shards,
    test,
)
from engine.tools.cli._common import main


def kubectl_plugin() -> None:
    """``kubectl stencil ...``: kubectl passes the arguments after the plugin's name as they are
    given; only the name in the usage lines is kubectl's."""
    main(prog_name="kubectl stencil")


__all__ = [
    "argocd",
    "bundle",
    "changes",
    "cluster",
    "crd",
    "dev",
    "kubectl_plugin",
    "lint",
    "main",
    "pictures",
    "rbac",
    "render",
    "run",
    "shards",
    "test",
]
