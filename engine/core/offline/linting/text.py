"""What the templates spell out in plain text, read line by line: where each child goes, and which fields.

Some mistakes show in a template's text before any ``{{ }}`` is rendered: a
Role or a fixed namespace that placement refuses, and a field one of the
cluster's own controllers sets.  Reading the text as lines (not rendering it)
reads every branch, those no example takes as well; what an expression computes
is left to the renders of the examples.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from engine.core.decisions.plans import contention
from engine.core.model import kinds
from engine.core.model.children import placement
from engine.core.offline.linting.findings import Finding

# -- where the children may go, as the templates spell it out ---------------------------------------

_DOCUMENT_SPLIT = re.compile(r"^---[ \t]*(?:#.*)?$")
_LITERAL = r"[ \t]*['\"]?(?P<value>[A-Za-z0-9][-A-Za-z0-9./]*)['\"]?[ \t]*(?:#.*)?$"
_TOP_FIELD = re.compile(r"^(?P<key>apiVersion|kind|metadata):" + rf"(?:{_LITERAL})?")
_NESTED_NAMESPACE = re.compile(r"^(?P<indent>[ \t]+)namespace:" + _LITERAL)
_NESTED = re.compile(r"^(?P<indent>[ \t]+)[^\s#{]")


@dataclass(frozen=True)
class _Literal:
    """What one document of a template says in plain text (no ``{{ }}``): kind, and where it goes."""

    line: int  # its first line, where rendering reports a placement refused
    api_version: str | None
    kind: str | None
    namespace: tuple[int, str] | None  # (line, value) of a literal metadata.namespace


def _literal_documents(text: str) -> Iterator[_Literal]:
    """Each document of a template, read line by line: a branch no example takes is read as well."""
    document: list[tuple[int, str]] = []
    for number, line in [*enumerate(text.splitlines(), 1), (0, "---")]:
        if not _DOCUMENT_SPLIT.match(line):
            document.append((number, line))
            continue
        content = [(n, t) for n, t in document if t.strip() and not t.lstrip().startswith(("#", "{%", "{#"))]
        document = []
        if not content:
            continue
        fields: dict[str, str] = {}
        namespace = None
        section = ""  # the top-level key the lines below belong to
        indent = ""  # of metadata's own fields: the first line under it
        for n, t in content:
            top = _TOP_FIELD.match(t)
            nested = _NESTED.match(t)
            if top is not None:
                section, indent = top["key"], ""
                if top["value"]:
                    fields[top["key"]] = top["value"]
            elif nested is None:
                section = ""
            elif section == "metadata":
                indent = indent or nested["indent"]
                found = _NESTED_NAMESPACE.match(t)
                if found is not None and found["indent"] == indent:
                    namespace = (n, found["value"])
        yield _Literal(content[0][0], fields.get("apiVersion"), fields.get("kind"), namespace)


def check_placement(kind: kinds.Kind) -> list[Finding]:
    """What placement would refuse in every template, where the template spells it out.

    Rendering the examples checks the children they render; a Role or a fixed
    namespace in a branch no example takes would wait for a parent to reach it.
    Only plain values are read: a kind or namespace an expression computes is
    known only once rendered, so the examples' renders check those.
    """
    findings: list[Finding] = []
    allowed = kind.placement.namespaces
    for template in kind.templates:
        for document in _literal_documents(template.text):
            what = document.kind or "a child"
            group = (document.api_version or "").rpartition("/")[0]
            if group == placement.RBAC_GROUP and what in placement.RBAC_KINDS and not kind.placement.rbac:
                message = (
                    f"{what}: RBAC objects are refused unless kind.yaml allows them (placement.rbac: true)"
                )
                findings.append(
                    Finding(str(template.path), document.line, None, "error", message, "placement")
                )
            if document.namespace is not None and "*" not in allowed:
                line, namespace = document.namespace
                if namespace not in allowed:
                    message = (
                        f"metadata.namespace: {what} in namespace {namespace!r}, which is not allowed "
                        f"(placement.namespaces: {', '.join(allowed) or 'none'}): only a parent in "
                        f"{namespace!r} itself could have this child"
                    )
                    findings.append(Finding(str(template.path), line, None, "error", message, "placement"))
    return findings


def check_controller_fields(kind: kinds.Kind) -> list[Finding]:
    """Fields a template writes that one of the cluster's controllers sets itself
    (``contention.SET_BY_CONTROLLERS``): the two would set them back and forth, and the engine
    would restore such a field only ever more slowly, the parent never Ready."""
    findings: list[Finding] = []
    for template in kind.templates:
        for number, line in enumerate(template.text.splitlines(), 1):
            found = _FIELD_KEY.match(line)
            why = contention.SET_BY_CONTROLLERS.get(found["key"]) if found is not None else None
            if found is not None and why is not None:
                message = (
                    f"{found['key']}: {why}; rendering it starts a fight the engine only slows down "
                    "(ContestedField): leave it out"
                )
                findings.append(
                    Finding(str(template.path), number, None, "warning", message, "controller-field")
                )
    return findings


_FIELD_KEY = re.compile(r"""\s*(?:-\s+)?["']?(?P<key>[\w./-]+)["']?\s*:""")
