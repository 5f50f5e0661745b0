"""The ``stencil`` command line: the outermost layer, wiring options to the engine."""

from __future__ import annotations

import click


@click.group()
@click.version_option(package_name="stencil-operator")
def main() -> None:
    """Stencil: a Kubernetes operator engine where a kind is a folder of templates."""
