"""The ``stencil`` command line: the outermost layer, wiring options to the engine.

One module a command (or a family of them), each registering itself on ``main`` when imported,
in three rooms by what a person is doing: ``authoring`` (writing a kind: checked, rendered,
drawn and written out, from its folder), ``trying`` (a kind tried on a local control plane) and
``operating`` (the engine run against a cluster, and a served kind changed).  Importing the
rooms here registers every command.  ``kubectl_plugin`` is the same group as the
``kubectl-stencil`` command, which kubectl runs for ``kubectl stencil ...`` when it is on PATH.
"""

from engine.tools.cli import authoring, operating, trying
from engine.tools.cli._common import main


def kubectl_plugin() -> None:
    """``kubectl stencil ...``: kubectl passes the arguments after the plugin's name as they are
    given; only the name in the usage lines is kubectl's."""
    main(prog_name="kubectl stencil")


__all__ = ["authoring", "kubectl_plugin", "main", "operating", "trying"]
