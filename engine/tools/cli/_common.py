"""The ``stencil`` group and what several commands share: reading CR files, signals (options: ``options``)."""

from __future__ import annotations

import dataclasses
import gc
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from engine.core.model import kinds
    from engine.core.model.language import documents
    from engine.core.offline import admission


# Python's collector runs a young collection every 700 net allocations of containers, and a
# full one, walking every object the process holds, each time enough survivors pile up.  The
# objects decoded from the API server (a Deployment is some 150 dicts and lists) survive a few
# young collections on their way into the cache, so a cold start of `stencil run` on 10,000
# parents ran 20 full collections of about 80 ms each: 1.7 CPU seconds, and pauses a reconcile
# waits out.  With 50,000 they are gone before the collector looks; the cache holds bytes, which
# it never walks.  The offline commands build what they read and render the same way: `stencil
# lint` of 4,000 DeployWebServices spent a fifth of its CPU in the collector, finding nothing.
GC_YOUNG_THRESHOLD = 50_000

# Said after an exception no command expected (not a ``StencilError``): a crash, in one line.
UNEXPECTED_HINT = "run `stencil --debug ...` for the traceback"


class _Commands(click.Group):
    """The ``stencil`` group: every failure of every command is one line and a non-zero exit.

    Expected failures (``StencilError``: bad input, an unreachable cluster) say
    what and where; anything else is reported the same way with its type, so a
    user never meets a traceback unless they ask for one with ``--debug``.
    """

    def invoke(self, ctx: click.Context) -> Any:
        from engine.core.model.errors import StencilError

        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # what is still buffered meets a closed pipe here, not at exit
            return result
        except BrokenPipeError:
            # The reader of stdout is gone (`stencil lint --graph | head -1`): nothing went wrong
            # to say.  The Kubernetes client turns its connections' errors into StencilErrors
            # (``transport.reaching``), so a broken pipe that reaches here is stdout's.
            _silence_stdout()
            raise SystemExit(1) from None
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except Exception as error:
            if ctx.params.get("debug"):
                raise
            if isinstance(error, StencilError):
                raise click.ClickException(str(error)) from error
            raise click.ClickException(f"{type(error).__name__}: {error} ({UNEXPECTED_HINT})") from error


def _silence_stdout() -> None:
    """Point stdout at the null device, so that Python's flush at exit does not meet the closed pipe
    again and print "Exception ignored" (the Python documentation's way, under "signal")."""
    try:
        fileno = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a file: a test's buffer, say
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fileno)
    os.close(devnull)


@click.group(cls=_Commands)
@click.version_option(package_name="stencil-operator")
@click.option("--debug", is_flag=True, envvar="STENCIL_DEBUG", help="Show a traceback when a command fails.")
def main(debug: bool) -> None:
    """Stencil: a Kubernetes operator engine where a kind is a folder of templates."""
    gc.set_threshold(GC_YOUNG_THRESHOLD, 20, 100)  # for every command


def chosen_kind_dirs(kind_dirs: tuple[Path, ...], templates_dir: Path) -> list[Path]:
    """The KIND_DIRs given, else every kind folder under --templates."""
    from engine.core.model import kinds

    if kind_dirs:
        return list(kind_dirs)
    if not templates_dir.is_dir():
        raise click.UsageError(f"no KIND_DIR given and no templates folder {templates_dir}")
    return kinds.kind_folders(templates_dir)


def stop_event() -> threading.Event:
    """An event set by SIGINT or SIGTERM."""
    import signal

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


def read_crs(
    kind_dir: Path, files: tuple[Path, ...], namespace: str, crds_dir: Path | None
) -> tuple[kinds.Kind, admission.OfflineCrds, list[tuple[str, dict[str, Any]]]]:
    """The kind, the CRDs, and each CR of the kind in the files as the API server would keep it
    (validated, defaulted, namespaced), with where it was read (``file:line``).

    A ``List`` (``kubectl get -o yaml`` of several objects) counts as its items.
    A check that cannot run offline (a CEL rule this library cannot evaluate, a
    CRD that is not there) is said on stderr: a CR is never passed silently."""
    from engine.core.model import errors, kinds
    from engine.core.model.language import documents
    from engine.core.offline import admission

    kind = kinds.load_kind(kind_dir)
    if kind.crd_file_needed:
        crds_dir = crds_dir or parent_crds_dir(kind)
    crds = admission.OfflineCrds.read(crds_dir or admission.find_crds_dir(kind.directory), [kind])
    if (kind.api_version, kind.kind) not in crds.schemas and kind.crd_file_needed:
        click.echo(
            f"note: no CRD for {kind.kind} ({kind.api_version}) in {crds_dir}/: CRs are not "
            "validated or defaulted",
            err=True,
        )
    parents = []
    first: dict[tuple[str | None, str], str] = {}  # where each CR is, by namespace and name
    for file in files:
        for document in opened_lists(documents.read_applied(file, errors.StencilError)):
            parent, notes = crds.admit_noting(document, kind, namespace)
            for note in notes:
                click.echo(f"note: {note}", err=True)
            if parent is None:
                continue
            # Applied, the second of two CRs of one name would replace the first: never both rendered.
            identity = (parent["metadata"].get("namespace"), parent["metadata"]["name"])
            if identity in first:
                raise document.error(
                    f"a second {kind.kind} named {identity[1]!r} (the first is at {first[identity]})",
                    ("metadata", "name"),
                )
            first[identity] = f"{file}:{document.line}"
            parents.append((first[identity], parent))
    if not parents:
        raise errors.StencilError(f"no {kind.kind} ({kind.api_version}) in {', '.join(map(str, files))}")
    return kind, crds, parents


def opened_lists(found: list[documents.Document]) -> list[documents.Document]:
    """The documents, each ``List`` replaced by its items, each item a document of its own node (so
    an error in it names its own line)."""
    import yaml

    opened = []
    for document in found:
        data, node = document.data, document.node
        a_list = isinstance(data, dict) and str(data.get("kind", "")).endswith("List")
        items = data.get("items") if a_list else None
        if not isinstance(items, list) or not isinstance(node, yaml.MappingNode):
            opened.append(document)
            continue
        nodes = next(value.value for key, value in node.value if key.value == "items")
        for item, item_node in zip(items, nodes, strict=True):
            opened.append(dataclasses.replace(document, node=item_node, data=item))
    return opened


def parent_crds_dir(kind: kinds.Kind) -> Path:
    """The folder holding the CRD of ``kind``'s parent when ``--crds`` names none (``admission.crd_places``),
    or an error that says where it looked and how to name one."""
    from engine.core.model import errors, kinds
    from engine.core.offline import admission

    found = admission.find_crds_dir(kind.directory, (kind.api_version, kind.kind))
    if found is None:
        places = " or ".join(f"{place}/" for place in admission.crd_places(kind.directory))
        raise errors.StencilError(
            f"no CRD for {kind.kind} ({kind.api_version}) in {places}; "
            "name the folder that holds it with --crds DIR",
            file=str(kind.directory / kinds.KIND_FILE),
            field="parent",
        )
    return found


# What an --observed document must be for the templates and rules to read it: an object as
# `kubectl get -o yaml` prints one, or a List of them.
_OBSERVED = {
    "type": "object",
    "required": ["apiVersion", "kind"],
    "properties": {
        "apiVersion": {"type": "string"},
        "kind": {"type": "string"},
        "items": {"type": "array", "items": {"type": "object"}},
    },
}


def read_observed(file: Path) -> list[dict[str, Any]]:
    """The objects of the --observed ``file``, Lists opened; anything else is an error at its line,
    never dropped (a file the templates silently do not read would preview the wrong children)."""
    from engine.core.model import errors
    from engine.core.model.language import documents
    from engine.core.offline import preview

    objects = []
    for document in documents.Document.read_all(file, errors.StencilError):
        document.validate(_OBSERVED)
        objects.append(document.data)
    return preview.flatten_lists(objects)
