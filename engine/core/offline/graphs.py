"""A kind drawn: its parent, the children its templates make, what it reads, and what waits for what.

``stencil graph KIND_DIR`` writes this as DOT or Mermaid (``pictures``), as ``kro generate
diagram`` does for a ResourceGraphDefinition.  Everything comes from the loaded kind,
without rendering: a template is drawn with the kind and name it spells out (its
``metadata.name`` as written, ``{{ name }}-service``), so a child behind an expression is
shown as the expression.

The arrows, each from what comes first to what follows it:

* ``after``: a template's ``after:`` in kind.yaml; ``reads``: a ``children.<id>`` its text
  reads (both are waits, ``model.sources.dependencies``).  When the template waited for has
  ``readyWhen`` rules, the arrow says ``readyWhen`` too: those rules, not kstatus, open
  the gate (``decisions.readiness``);
* ``references``: a ``references.<id>`` a template reads, from the referenced object to the
  template; a reference no template reads points at the parent (its status rules read it);
* ``observes``: the related kinds (``observe:``) the parent's status rules read;
* a dotted arrow from the parent to each template: the parent owns what it makes.

Each box also says the lifecycle its template gives its children (``model.sources.lifecycle``: a
deletion policy, ``createOnly``, ``applyOnce``, ``adopt``, an update strategy) and, for a kind
with an ordered teardown, its stage; the parent's box, the kind's period and teardown.
"""

from __future__ import annotations

import re

from jinja2 import TemplateSyntaxError

from engine.core.model.kinds import Kind, Template
from engine.core.model.language import expressions
from engine.core.offline.pictures import Edge, Node, Picture

PARENT = "parent"

_DOCUMENTS = re.compile(r"^---\s*$", re.M)
_KIND = re.compile(r"^kind:[ \t]*(.+?)[ \t]*(?:#.*)?$", re.M)
_FIELD = re.compile(r"^([ \t]*)([A-Za-z]+):[ \t]*(.*?)[ \t]*$")


def template_key(template_id: str) -> str:
    return f"template:{template_id}"


def reference_key(reference_id: str) -> str:
    return f"reference:{reference_id}"


def picture(kind: Kind) -> Picture:
    """The kind as boxes and arrows: the parent, one box a template, a reference or an observed kind."""
    nodes = [Node(PARENT, (kind.kind, kind.api_version, *_parent_lines(kind)), "parent")]
    edges: list[Edge] = []
    by_id = {template.id: template for template in kind.templates}
    for template in kind.templates:
        stage = () if kind.teardown is None else (f"teardown stage {kind.teardown.stage_of(template.id)}",)
        nodes.append(Node(template_key(template.id), (*_template_lines(template), *stage)))
        edges.append(Edge(PARENT, template_key(template.id), style="dotted"))
        reads = {read.id for read in template.reads}
        for needed in template.waits_for:
            if needed not in by_id:
                continue  # the loader refuses it; a kind built in memory is drawn without it
            label = " + ".join(
                why for why, says in (("after", needed in template.after), ("reads", needed in reads)) if says
            )
            label += " (readyWhen)" if by_id[needed].ready_when else ""
            edges.append(Edge(template_key(needed), template_key(template.id), label))
    readers = {
        reference.id: [t.id for t in kind.templates if reference.id in _references_read(t)]
        for reference in kind.references
    }
    for reference in kind.references:
        said = reference.name.text if reference.name is not None else _selector(reference.selector)
        lines = (f"references.{reference.id}", f"{reference.kind} {said}", reference.api_version)
        nodes.append(
            Node(
                reference_key(reference.id),
                lines + (("optional",) if reference.optional else ()),
                "reference",
            )
        )
        for reader in readers[reference.id] or [PARENT]:
            target = PARENT if reader == PARENT else template_key(reader)
            edges.append(Edge(reference_key(reference.id), target, "references", "dashed"))
    for api_version, observed in kind.observe:
        key = f"related:{api_version}/{observed}"
        nodes.append(Node(key, (observed, api_version, "labelled with the parent's uid"), "related"))
        edges.append(Edge(key, PARENT, "observes", "dashed"))
    return Picture(kind.kind, tuple(nodes), tuple(edges))


def _parent_lines(kind: Kind) -> tuple[str, ...]:
    """What the kind says of its parents' life: a period, an ordered teardown; what a decorator selects."""
    lines = [f"reconciled every {kind.every:.0f} s"] if kind.every else []
    if kind.decorates is not None:  # existing objects it selects, not a CRD of its own
        selector = ", ".join(r.as_selector() for r in (*kind.decorates.labels, *kind.decorates.annotations))
        lines.append(f"decorates those selected ({selector}) in {', '.join(kind.decorates.namespaces)}")
    if kind.teardown is not None:
        lines.append(f"ordered teardown, at most {kind.teardown.timeout:.0f} s")
    return tuple(lines)


def _template_lines(template: Template) -> tuple[str, ...]:
    lines = [template.id]
    lines += [f"{kind} {name}".rstrip() for kind, name in spelled(template.text)] or ["(kind computed)"]
    lines += ["one per item"] if template.collection else []
    lines += [f"readyWhen: {rule.text}" for rule in template.ready_when]
    lines += [str(template.lifecycle)] if str(template.lifecycle) else []  # Orphan, createOnly, ...
    lines += ["patch of an object not owned"] if template.patch else []
    return tuple(lines)


def spelled(text: str) -> list[tuple[str, str]]:
    """The kind and ``metadata.name`` each document of a template spells out, as written (an
    expression stays an expression); a document without a literal ``kind:`` is left out."""
    found = []
    for document in _DOCUMENTS.split(text):
        kind = _KIND.search(document)
        if kind is not None:
            found.append((kind.group(1).strip("'\""), _metadata_name(document)))
    return found


def _metadata_name(document: str) -> str:
    """The value of ``metadata.name`` (or ``generateName``) as written, or ``""``."""
    inside, depth = False, ""
    for line in document.splitlines():
        match = _FIELD.match(line)
        if match is None:
            continue
        indent, key, value = match.groups()
        if not indent:
            inside, depth = key == "metadata", ""
        elif inside:
            depth = depth or indent
            if indent == depth and key in ("name", "generateName"):
                return value.strip("'\"") + ("…" if key == "generateName" else "")
    return ""


def _references_read(template: Template) -> set[str]:
    try:
        tree = expressions.ENVIRONMENT.parse(template.text)
    except (TemplateSyntaxError, RecursionError):
        return set()
    return set(expressions.child_id_lines(tree, "references"))


def _selector(labels: tuple[tuple[str, str], ...]) -> str:
    return "labelled " + ",".join(f"{key}={value}" for key, value in labels)
