"""``stencil graph`` and ``stencil tree``: a kind, and a parent's family, as text or as a picture.

What is drawn is the core's (``offline.graphs``, ``offline.family``, spelled by
``offline.pictures``); reading the cluster for a tree is ``engine.tools.families``.  Here
are the options, and the one step no core module takes: handing DOT to Graphviz's ``dot``
for an SVG or a PNG.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import main

TEXT_FORMATS = ("dot", "mermaid")
PICTURE_FORMATS = ("svg", "png")
NO_GRAPHVIZ = (
    "-o {format} needs Graphviz's dot on PATH (apt-get install graphviz, brew install graphviz); "
    "-o dot and -o mermaid need nothing"
)


def _format_option(choices: tuple[str, ...], help: str) -> options.Decorator:
    return click.option(
        "-o",
        "--format",
        "output_format",
        type=click.Choice(choices),
        default=choices[0],
        show_default=True,
        help=help,
    )


_output_option: options.Decorator = click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="File to write (required for svg and png) [default: standard output].",
)


def write(dot_or_text: str, output_format: str, output: Path | None) -> None:
    """``dot_or_text`` to ``output`` (or stdout); an SVG or PNG drawn from it by Graphviz."""
    if output_format not in PICTURE_FORMATS:
        if output is None:
            click.echo(dot_or_text, nl=False)
        else:
            output.write_text(dot_or_text, encoding="utf-8")
        return
    if output is None:
        raise click.UsageError(f"-o {output_format} writes a picture: give --output FILE")
    program = shutil.which("dot")
    if program is None:
        raise click.ClickException(NO_GRAPHVIZ.format(format=output_format))
    done = subprocess.run(
        [program, f"-T{output_format}", "-o", str(output)],
        input=dot_or_text,
        text=True,
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        raise click.ClickException(f"Graphviz's dot failed: {done.stderr.strip()}")


@main.command("graph")
@click.argument("kind_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@_format_option(
    (*TEXT_FORMATS, *PICTURE_FORMATS),
    "dot: Graphviz text; mermaid: a flowchart GitHub renders; svg, png: drawn by Graphviz's dot.",
)
@_output_option
def graph(kind_dir: Path, output_format: str, output: Path | None) -> None:
    """Draw a kind: its parent, its templates' children, what it references, and what waits for what.

    Each template is a box with the kind and name it spells out; an arrow goes from
    what comes first to what waits for it (after:, a children.<id> it reads, and
    readyWhen when those rules open the gate); referenced objects point at the
    templates that read them.  Offline: nothing is rendered or asked of a cluster.
    """
    from engine.core.model import kinds
    from engine.core.offline import graphs, pictures

    picture = graphs.picture(kinds.load_kind(kind_dir))
    text = pictures.mermaid(picture) if output_format == "mermaid" else pictures.dot(picture)
    write(text, output_format, output)


@main.command("tree")
@click.argument("parent", metavar="KIND/NAME")
@options.namespace("default", "Namespace of the parent.", short=True)
@options.templates("Folder of kind folders; the one serving KIND is used.")
@options.kubeconfig("Kubeconfig (default: $KUBECONFIG or ~/.kube/config).")
@options.context()
@_format_option(
    ("text", "dot", "mermaid", "svg", "png"), "text: an indented tree; dot, mermaid, svg, png: a picture."
)
@_output_option
def tree(
    parent: str,
    namespace: str,
    templates_dir: Path,
    kubeconfig: str | None,
    context: str | None,
    output_format: str,
    output: Path | None,
) -> None:
    """Show a parent's children, references and related objects as a tree, each with its health.

    Read-only.  Each child is judged as the engine judges it for ChildrenReady
    (its template's readyWhen, else kstatus), with the reason it is not ready;
    the parent's line is its Ready condition and reason.  KIND is the parent's
    kind, its folder's name, its plural or a short name, in any case:
    DeployWebService/nginx, dws/nginx.
    """
    from engine.core.model import kinds
    from engine.core.offline import family, pictures
    from engine.runtime.cluster.kube import Kube
    from engine.tools import families

    kind_name, _, name = parent.partition("/")
    if not kind_name or not name:
        raise click.UsageError(f"{parent!r} is not KIND/NAME, such as DeployWebService/nginx")
    loaded = list(kinds.load_kinds(templates_dir)[0].values())
    with contextlib.closing(Kube.from_kubeconfig(kubeconfig, context=context)) as kube:
        kind = families.find_kind(loaded, kind_name, kube)
        found = family.members(families.gather(kube, kind, name, namespace))
    if output_format == "text":
        write(family.text(found), output_format, output)
        return
    picture = family.picture(found)
    write(
        pictures.mermaid(picture) if output_format == "mermaid" else pictures.dot(picture),
        output_format,
        output,
    )
