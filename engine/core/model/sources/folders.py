"""The files of a kind folder and what each one is: kind.yaml, child templates, partials, examples.

``templates/<name>/kind.yaml`` says what the folder serves; a ``*.yaml`` or ``*.yaml.j2`` file
beside it is a child template (every one, sorted by name, unless kind.yaml lists
``templates:``); ``examples/`` holds sample CRs.

A file beside kind.yaml whose name starts with ``_`` and ends with ``.yaml`` or ``.j2``
(``_labels.yaml``, ``_macros.j2``, ``_base.yaml.j2``) is a *partial*: text the templates
``{% include %}``, ``{% import %}`` or ``{% extends %}``, never rendered on its own, so it has
no id, makes no child and cannot be listed under ``templates:``.  A partial reads no
``children.<id>``: that read is what makes a template wait for another
(``engine.core.model.sources.dependencies``), and a template that includes the partial would not know
it had to.  The folder's ``digest`` is over every file in it, partials with the rest, so
editing a partial is a new revision of the kind.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from engine.core.model.errors import KindError
from engine.core.model.language import documents
from engine.core.model.sources import dependencies

KIND_FILE = "kind.yaml"
TEMPLATE_SUFFIXES = (".yaml.j2", ".yaml")
PARTIAL_PREFIX = "_"
PARTIAL_SUFFIXES = (".yaml", ".j2")  # .j2 holds .yaml.j2 too: a macro file need not be YAML


def default_id(file_name: str) -> str:
    """The id of a template that is not given one: its file name without ``.yaml`` or ``.yaml.j2``."""
    for suffix in TEMPLATE_SUFFIXES:
        if file_name.endswith(suffix):
            return file_name[: -len(suffix)]
    return file_name


def is_partial(file_name: str) -> bool:
    """Whether a file of the folder named ``file_name`` is a partial: ``_*.yaml`` or ``_*.j2``."""
    return file_name.startswith(PARTIAL_PREFIX) and file_name.endswith(PARTIAL_SUFFIXES)


def template_files(directory: Path) -> list[Path]:
    """The child templates of a folder whose kind.yaml lists none: every ``*.yaml`` and
    ``*.yaml.j2`` file beside kind.yaml that is not a partial, by name."""
    return sorted(
        p
        for p in directory.iterdir()
        if p.is_file()
        and p.name != KIND_FILE
        and p.name.endswith(TEMPLATE_SUFFIXES)
        and not is_partial(p.name)
    )


@dataclass(frozen=True)
class Partial:
    """A file the templates include, import or extend: its path (for error messages) and its text."""

    path: Path
    text: str

    @property
    def name(self) -> str:
        """What a template names it by: ``{% include '_labels.yaml' %}``."""
        return self.path.name


def partials_in(directory: Path) -> tuple[Partial, ...]:
    """The folder's partials, by name, or ``KindError`` at the line of one that reads ``children.<id>``."""
    found = []
    for path in sorted(p for p in directory.iterdir() if p.is_file() and is_partial(p.name)):
        partial = Partial(path, documents.read_text(path, KindError))
        if reads := dependencies.reads_in(partial.text):
            read = reads[0]
            raise KindError(
                f"children.{read.id}: a partial cannot read a template's child, since the templates that "
                "include it would not wait for that template; read it in the template, which then "
                f"waits for it, and pass it on ({{% set {read.id.replace('-', '_')} = "
                f"children[{read.id!r}] %}} before the include)",
                file=str(path),
                line=read.line,
            )
        found.append(partial)
    return tuple(found)


def kind_folders(root: Path) -> list[Path]:
    """The folders under ``root`` that are kinds, by name: every folder but those starting ``.`` or ``_``."""
    return sorted(p for p in root.iterdir() if p.is_dir() and p.name[:1] not in "._")


def digest(directory: Path) -> str:
    """sha256 over every file of the folder (its partials among them), by relative path and content."""
    hashed = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        relative = path.relative_to(directory).as_posix().encode()
        content = path.read_bytes()
        hashed.update(b"%d:%s%d:" % (len(relative), relative, len(content)))
        hashed.update(content)
    return hashed.hexdigest()
