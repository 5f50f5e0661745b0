"""Rendering: a kind's templates, a parent and its observed children -> the children to apply.

``render(kind, parent, observed)`` is pure (no I/O; the clock is read only to
enforce the time budget) and deterministic: the same inputs give the same list
of plain JSON dicts, ready for server-side apply.

Safety.  A value from the CR must never change the *structure* of a manifest,
however it is spelled (newlines, quotes, ``: ``, ``---``, ``&anchors``, ``!!tags``).
Escaping values for YAML would be one more thing every template author must
get right, so values never reach the YAML parser at all.  Each template is
rendered in three steps, a module each:

1. it runs in the sandbox (``engine.core.templating.sandbox``), where every
   ``{{ ... }}`` records its value and writes an opaque token instead
   (``engine.core.templating.tokens``), and what each chunk of text came from is
   noted (``engine.core.templating.places``);
2. the text, now made only of the template's own characters and tokens, is
   parsed as YAML into a plan of each document, kept by the shape of the text,
   and
3. the plan is filled in with the values, in one pass
   (``engine.core.templating.substitution``, both steps).

Then each document is placed (``engine.core.model.children.placement``: where the child
lands and what it carries back to its parent: namespace, labels, owner
reference), and any problem found with it is reported at the template line that
wrote it (``Located.where``).  A template that reads ``children.<id>`` is rendered
after that template, whose children's identities, matched against the observed
objects, say what it reads (``engine.core.model.sources.shapes.observed_by_id``).  This
module is the front door: every name the rest of the engine reads about rendering
is read here.

Rights.  A kind writes only the child kinds derived for it (``child_kinds``: the
kinds its templates spell out, and those its examples render), which is what
``stencil rbac`` grants it; any other child, however a template came to render it,
is refused by placement at its template line.  Deriving them renders the examples,
once per kind (``allowed_child_kinds``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

import yaml

from engine.core.model import apis, kinds
from engine.core.model.children import confidential, patches, placement
from engine.core.model.errors import NotServed, RenderError, StencilError, TooManyChildren
from engine.core.model.identity import ChildId
from engine.core.model.language.documents import FieldPath, load_all
from engine.core.model.sources import dependencies, shapes
from engine.core.templating import places, sandbox, substitution

# -- the entry points -----------------------------------------------------------------


class Options(TypedDict, total=False):
    """``render``'s keywords, passed on to ``render_located``, which declares them with their
    defaults; ``render`` says what each means."""

    is_namespaced: Callable[[str, str], bool] | None
    limits: sandbox.Limits
    child_kinds: Container[tuple[str, str]] | None
    references: Mapping[str, Any] | None


def render(
    kind: kinds.Kind, parent: dict[str, Any], observed: Sequence[dict[str, Any]], **options: Unpack[Options]
) -> list[dict[str, Any]]:
    """The children ``kind``'s templates make for ``parent``, placed, labelled and owned.

    ``observed`` are the parent's children as the cluster has them (templates
    can read, say, a Service's assigned clusterIP).  ``is_namespaced`` tells the
    scope of a child kind; without it the built-in table is used.  A parent
    with a ``metadata.namespace`` is namespaced, one without is cluster-scoped.
    ``child_kinds`` are the ``(apiVersion, kind)`` pairs a child may have; without
    it, those derived for the kind (``allowed_child_kinds``).  ``references`` are what the
    kind's references read (``references.<id>``, ``engine.core.decisions.referencing``).
    Raises ``RenderError`` (or ``PlacementError``) naming the template, line and
    CR field involved.
    """
    located = render_located(kind, parent, observed, **options)
    return [one.child for one in located if not one.template.patch]


def render_located(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    limits: sandbox.Limits = sandbox.DEFAULT_LIMITS,
    child_kinds: Container[tuple[str, str]] | None = None,
    references: Mapping[str, Any] | None = None,
    trace: places.Trace | None = None,
) -> list[Located]:
    """What ``render`` returns, each child with the template that made it and the line of each field.

    For a checker that finds a problem in a rendered child (a field its schema
    refuses, say) and must report it where the author can fix it: not at a line
    of the rendered text, which nobody sees, but at the template's own line::

        for located in rendering.render_located(kind, parent, []):
            for path, problem in check(located.child):
                file, line = located.where(path)
                print(f"{file}:{line}: {problem}")

    Same arguments, errors and children as ``render``; ``trace`` is a ``sys.settrace`` function
    the templates' own steps run under (``places.generate``), for a checker that asks which of
    their lines ran.
    """
    allowed = allowed_child_kinds(kind) if child_kinds is None else child_kinds
    return _render(kind, parent, observed, is_namespaced, limits, allowed, references, trace)


@dataclass(frozen=True)
class Located:
    """A rendered child, the template that made it, and where in that template each field was written.

    ``where(path)`` takes a field path inside ``child`` (``("spec", "ports", 0,
    "port")``) to the template file and line that wrote it.  A field the
    template did not write itself (a label the engine adds, a key inside a
    value that came whole from the CR) is placed at the nearest field above it
    that the template wrote.  The file is ``template``'s own (text an
    ``{% include %}`` brings in is placed at the include), unless the template
    extends another, whose own text is placed in that one.
    """

    child: dict[str, Any]
    template: kinds.Template
    _position: int = field(repr=False, compare=False)  # of its document in the rendered text
    _output: places.Output = field(repr=False, compare=False)

    def where(self, path: FieldPath) -> tuple[str, int]:
        """The template file and line that wrote the field ``path``, or the nearest field above it."""
        return self._output.place(
            places.rendered_line(self._output.node(self._position), path, self._output.run)
        )

    def line_of(self, path: FieldPath) -> int:
        """The line of ``where(path)``."""
        return self.where(path)[1]


def not_served(child: Located, server: str = "the API server", served_in: Sequence[str] = ()) -> NotServed:
    """The refusal of a child of a kind ``server`` does not serve, at the template line of its apiVersion.

    The one wording of it: the engine says it live, where discovery does not list the kind, and
    ``stencil render`` and ``stencil lint`` offline, where neither the pinned Kubernetes version nor a
    CRD given serves it (``engine.core.offline.admission.OfflineCrds.unserved``); ``served_in`` are the
    apiVersions that do serve the kind, when they are known.
    """
    api_version, kind = child.child["apiVersion"], child.child["kind"]
    file, line = child.where(("apiVersion",))
    message = f"{kind} {child.child['metadata']['name']!r}: {server} serves no kind {kind} in {api_version}"
    if served_in:
        message += f" (it serves {kind} in {', '.join(served_in)})"
    return NotServed(message, file=file, line=line, field="apiVersion")


# One shape per id (``engine.core.model.sources.shapes``): a template's children.<id> is one child or a list,
# by what kind.yaml says, never by how many it rendered this time.
_NOT_A_COLLECTION = (
    "{0} renders a second child, but it is not a collection: a template that renders one child "
    "per item says so in kind.yaml (templates: [{{file: {0}, collection: true}}]) and is read as a list"
)


_TOO_MANY = (
    "renders more than the {0} children a parent may have (placement.maxChildren of kind.yaml, at most "
    "the engine's --max-children): nothing is applied or pruned until it renders fewer"
)


def _render(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    is_namespaced: Callable[[str, str], bool] | None,
    limits: sandbox.Limits,
    child_kinds: Container[tuple[str, str]],
    references: Mapping[str, Any] | None = None,
    trace: places.Trace | None = None,
) -> list[Located]:
    owner = placement.Owner.of(kind, parent)
    scope = is_namespaced or apis.builtin_is_namespaced
    environment = sandbox.make_environment(kind.sources)
    # The names every template of the kind sees, with the environment's globals under them:
    # merged once here, not again for each template (Jinja merges on every render).
    # ``children.<id>`` of each template rendered so far, filled in as they render.
    by_id: dict[str, Any] = {}
    context = {**environment.globals, **sandbox.template_context(parent, observed, by_id, references)}
    made: dict[kinds.Template, list[Located]] = {}
    seen: dict[ChildId, str] = {}
    secrets = confidential.secret_values(references, observed)
    limit = kind.placement.max_children or kinds.MAX_CHILDREN
    for template in _render_order(kind.templates):
        children = made.setdefault(template, [])
        output, documents = _render_template(environment, kind.sources, template, context, limits, trace)
        for count, (document, position) in enumerate(documents, start=1):
            try:
                if count == 2 and not template.collection:
                    raise RenderError(_NOT_A_COLLECTION.format(template.name))
                if len(seen) == limit:
                    raise TooManyChildren(_TOO_MANY.format(limit))
                if template.patch:
                    may = allowed_patch_kinds(kind)
                    child = patches.place(document, owner, kind, scope, str(template.path), may)
                else:
                    child = placement.place(document, owner, kind, scope, template, child_kinds)
            except RenderError as error:
                raise places.at_template_line(error, output, position) from error
            child_id = ChildId.of(child)
            if child_id in seen:
                raise RenderError(
                    f"{child_id} is rendered twice (also by {seen[child_id]})",
                    file=str(template.path),
                )
            seen[child_id] = template.name
            located = Located(child, template, position, output)
            for path in confidential.leaks(child, secrets):
                file, line = located.where(path)
                field_name = ".".join(str(p) for p in path)
                raise RenderError(
                    confidential.leak_message(child, path), file=file, line=line, field=field_name
                )
            children.append(located)
        rendered = ((template.id, ChildId.of(located.child)) for located in children)
        by_id.update(shapes.observed_by_id(kind.templates, rendered, observed))
    return [located for template in kind.templates for located in made[template]]


def _render_order(templates: tuple[kinds.Template, ...]) -> list[kinds.Template]:
    """The templates, each after those it reads as ``children.<id>``, else in the kind's order: what
    a template reads is then known, the identity of what the read template rendered this time
    matched against what is observed."""
    by_id = {template.id: template for template in templates}
    if len(by_id) < len(templates):  # ids the loader would refuse: nothing to order by
        return list(templates)
    reads = {template.id: [read.id for read in template.reads] for template in templates}
    return [by_id[template_id] for template_id in dependencies.render_order(list(by_id), reads)]


# -- the child kinds a kind may write -------------------------------------------------------


class _EveryKind:
    def __contains__(self, pair: object) -> bool:
        return True


# What the examples render with while the child kinds are derived: they are what decides them.
EVERY_KIND: Container[tuple[str, str]] = _EveryKind()

Defaults = Callable[[dict[str, Any]], dict[str, Any]]


def as_written(parent: dict[str, Any]) -> dict[str, Any]:
    """A parent without the defaults a CRD would give it."""
    return parent


def example_children(kind: kinds.Kind, defaults: Defaults = as_written) -> list[dict[str, Any]]:
    """Every child that rendering the kind's examples yields, whatever its kind.

    ``defaults`` fills in what the API server would (the CRD's schema defaults), so
    an example may leave defaulted fields out, as users' CRs do.
    """
    children: list[dict[str, Any]] = []
    for example in kind.examples:
        for parent in load_all(example):
            if parent.get("kind") != kind.kind:
                continue
            metadata = parent.setdefault("metadata", {})
            metadata.setdefault("namespace", "default")
            metadata.setdefault("uid", placement.NO_UID)
            children.extend(render(kind, defaults(parent), [], child_kinds=EVERY_KIND))
    return children


def child_kinds(kind: kinds.Kind, defaults: Defaults = as_written) -> frozenset[tuple[str, str]]:
    """Every child kind the kind is known to render: spelled out in its templates, or yielded by
    rendering its examples.  The one answer to the question, for RBAC (``stencil rbac`` grants
    these), what a kind may write, the engine's caches and ``stencil diff``."""
    rendered = {(str(c["apiVersion"]), str(c["kind"])) for c in example_children(kind, defaults)}
    return frozenset(rendered | placement.spelled_child_kinds(kind))


@functools.lru_cache(maxsize=256)
def allowed_child_kinds(kind: kinds.Kind) -> frozenset[tuple[str, str]]:
    """The child kinds ``kind`` may write: ``child_kinds(kind)``, derived once per kind.

    Examples that need CRD defaults this process does not have (the engine reads no
    CRD; a kind from a ConfigMap has no examples at all) leave the kinds the templates
    spell out: fewer than ``stencil rbac`` may grant, never more.
    """
    try:
        return child_kinds(kind)
    except (StencilError, OSError, ValueError, yaml.YAMLError):
        return frozenset(placement.spelled_child_kinds(kind))


@functools.lru_cache(maxsize=256)
def allowed_patch_kinds(kind: kinds.Kind) -> frozenset[tuple[str, str]]:
    """The kinds ``kind`` may patch: those its patch templates spell out, which ``stencil rbac`` grants."""
    return frozenset(placement.spelled_patch_kinds(kind))


# -- one template -----------------------------------------------------------------------


def _render_template(
    environment: sandbox.Sandbox,
    sources: tuple[kinds.Source, ...],
    template: kinds.Template,
    context: dict[str, Any],
    limits: sandbox.Limits,
    trace: places.Trace | None = None,
) -> tuple[places.Output, list[tuple[Any, int]]]:
    """Render one template to its documents (values filled in, empty ones dropped), each with its position."""
    with sandbox.running(limits) as run:
        output = places.generate(environment, sources, template, context, run, trace)
        return output, substitution.documents(output)


def check_syntax(kind: kinds.Kind) -> None:
    """Raise the ``RenderError`` of the first of ``kind``'s templates and partials that does not
    compile, at its line.

    Rendering finds such a template too, but only one an example reaches; ``stencil rbac``
    asks this of every template and partial, since one it cannot read could hold a child kind
    whose rights the role would then lack."""
    environment = sandbox.make_environment(kind.sources)
    for source in kind.sources:
        try:
            environment.get_template(source.name)
        except Exception as error:  # as rendering reports it: a syntax error, a template nested too deep
            raise places.failure(error, environment, str(source.path)) from error
