"""The options several commands share, each declared here once.

An option that means the same thing in several commands (where the kind folders are, the
CRDs, the kubeconfig, a namespace, files of CRs) has one declaration: its flag, where its
value lands, its type and its default.  What a command says about it in ``--help`` is the
command's own, because the same option can mean a little more in one command than in
another (``--templates`` of ``lint`` lints every folder when no KIND_DIR is given), so the
help is the one thing a command passes in.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from engine.core.decisions.referencing import DEFAULT_READER
from engine.core.model.language import seedkeys

Decorator = Callable[[Callable[..., None]], Callable[..., None]]


def _folder(*, exists: bool) -> click.Path:
    return click.Path(exists=exists, file_okay=False, path_type=Path)


def templates(help: str = "Folder of kind folders.", *, exists: bool = True) -> Decorator:
    """``--templates``: the folder of kind folders (``templates_dir``); ``exists=False`` leaves a
    missing folder to the command, which may not need it."""
    return click.option(
        "--templates",
        "templates_dir",
        default="templates",
        show_default=True,
        type=_folder(exists=exists),
        help=help,
    )


def crds(
    help: str = "Folder of the kinds' CRD files (the default may be missing).",
    *,
    default: str | None = "crds",
) -> Decorator:
    """``--crds``: the folder of the kinds' CRDs (``crds_dir``); with no default the command
    finds one itself and says where in ``help``.

    A folder given must exist, but the default may be missing and then holds no CRD files:
    the kinds may write theirs from ``schema:``.  Click checks a default as it checks a value
    given, so the default is filled in after the check."""
    return click.option(
        "--crds",
        "crds_dir",
        default=None,
        type=_folder(exists=True),
        callback=lambda _ctx, _param, value: Path(default) if value is None and default else value,
        help=f"{help}  [default: {default}]" if default else help,
    )


def kubeconfig(help: str) -> Decorator:
    """``--kubeconfig``: the kubeconfig to read, as a path the client resolves (none: its own search)."""
    return click.option("--kubeconfig", default=None, help=help)


def context() -> Decorator:
    """``--context``: the kubeconfig context to use, as kubectl's (none: its current one)."""
    return click.option("--context", default=None, help="Kubeconfig context (default: its current one).")


def seed_key_secret() -> Decorator:
    """``--seed-key-secret``: the engine's seed key Secret, read by a command that renders live."""
    return click.option(
        "--seed-key-secret",
        default=f"stencil-system/{seedkeys.SECRET_NAME}",  # the install guide's namespace
        show_default=True,
        help="NAMESPACE/NAME of the engine's seed key Secret, read (if you may) so that random_string "
        "values come out as the engine renders them; otherwise they differ, and a note says so.",
    )


def kubeconfig_to_write(help: str) -> Decorator:
    """``--kubeconfig`` of a command that starts a local cluster: where to write its kubeconfig."""
    return click.option(
        "--kubeconfig", default=None, type=click.Path(dir_okay=False, path_type=Path), help=help
    )


def namespace(default: str | None, help: str, *, short: bool = False) -> Decorator:
    """``--namespace`` (``-n`` too with ``short``, as kubectl has it): one namespace, with a default
    (None: the command's own, said in ``help``)."""
    flags = ("-n", "--namespace") if short else ("--namespace",)
    return click.option(*flags, default=default, show_default=default is not None, help=help)


def cr_files(help: str, *, required: bool = False) -> Decorator:
    """``-f/--filename`` (``files``, repeatable): files of CRs."""
    return click.option(
        "-f",
        "--filename",
        "files",
        multiple=True,
        required=required,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help=help,
    )


def kind_dirs_arguments(verb: str) -> Decorator:
    """KIND_DIR ... and --templates: the kind folders a command works on (``chosen_kind_dirs``)."""

    def decorate(command: Callable[..., None]) -> Callable[..., None]:
        command = templates(
            f"Folder of kind folders, every one {verb} when no KIND_DIR is given.", exists=False
        )(command)
        return click.argument("kind_dirs", nargs=-1, type=_folder(exists=True))(command)

    return decorate


def cr_files_arguments(command: Callable[..., None]) -> Callable[..., None]:
    """KIND_DIR, -f files of CRs, -n namespace and --crds: what render and diff both read."""
    options: list[Decorator] = [
        click.argument("kind_dir", type=_folder(exists=True)),
        cr_files("A file of CRs (repeatable); documents of other kinds are skipped.", required=True),
        namespace(
            "default", "Namespace of a namespaced CR that names none, as kubectl would use.", short=True
        ),
        crds(
            "CRDs giving custom kinds their scope, defaults and validation "
            "[default: the first of KIND_DIR/crds/ and crds/ beside the templates folder "
            "that holds the parent's CRD].",
            default=None,
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def observed(help: str, *, multiple: bool = False) -> Decorator:
    """``--observed FILE``: objects as the cluster has them (``kubectl get -o yaml``); ``observed_file``,
    or ``observed_files`` with ``multiple``."""
    return click.option(
        "--observed",
        "observed_files" if multiple else "observed_file",
        default=None if not multiple else (),
        multiple=multiple,
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help=help,
    )


def read_as(help: str) -> Decorator:
    """``--read-as``: the ServiceAccount references are read as where a kind's ``readAs`` names none."""
    return click.option("--read-as", default=DEFAULT_READER, show_default=True, help=help)


def bind_address(option: str, value: str) -> tuple[str, int] | None:
    """``host:port`` (host may be empty: every address) as a bind address, None for '0' (off)."""
    if value in ("0", ""):
        return None
    host, _, port = value.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise click.BadParameter(f"{value!r} is not host:port", param_hint=option)
    return host.strip("[]") or "0.0.0.0", int(port)
