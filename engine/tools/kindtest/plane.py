"""``stencil test``'s run: the local control plane, the engine on it, and the examples waited for.

``run`` starts a local control plane with one kwok node, installs the kinds'
CRDs, runs the engine in-process on just the chosen kinds, applies every example
into a namespace of its own (its fixtures first), and waits for all of them at
once: each until its parent is Ready at its current generation, or, with an
expected status, until the parent's status holds what that file says.  Each
example is checked against its golden file as soon as it gets there; all of it
is torn down again before ``run`` returns, also on Ctrl-C.  What the examples
share, and the namespace each has of its own, is ``engine.tools.isolation``.

A parent the API server refuses a child of (``engine.tools.refusals``) fails its
example at once, at the template line of that child: the engine retries such a
refusal, so waiting for Ready would only wait out the timeout.
"""

from __future__ import annotations

import contextlib
import functools
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core import door
from engine.core.model import documents, errors, kinds, placement
from engine.core.model.identity import ChildId
from engine.core.templating import rendering
from engine.runtime.cluster.kube import Kube, Obj, Resource
from engine.tools import diffing, isolation, parents, refusals
from engine.tools.kindtest import agreement, golden
from engine.tools.kindtest.comparing import ABSENT, Difference, differences
from engine.tools.kindtest.examples import Example, UsageError, crds_dirs
from engine.tools.kindtest.report import Outcome, Report, echo_outcome, summary

if TYPE_CHECKING:
    from engine.runtime.serving.manager import Engine

POLL = 0.2  # seconds between looks at the parents being waited for
_SERVICE_ACCOUNTS = Resource("", "v1", "ServiceAccount", "serviceaccounts", namespaced=True)


@dataclass
class _Running:
    """An example applied and being waited for."""

    example: Example
    namespace: str
    parents: list[tuple[str, str | None]]  # name and namespace of each parent it applied
    started: float
    expected_status: documents.Document | None = None  # the companion file, if there is one
    last: list[Obj | None] = field(default_factory=list)  # the parents as last seen

    def done(self) -> bool:
        if not self.last or any(parent is None for parent in self.last):
            return False
        if self.expected_status is not None:
            return not any(self.status_differences())
        return all(parents.ready_at_generation(parent) for parent in self.last if parent)

    def status_differences(self) -> list[Difference]:
        return [
            difference
            for parent in self.last
            for difference in differences(
                self.expected_status.data if self.expected_status else None,
                (parent or {}).get("status", ABSENT),
                subset=True,
            )
        ]

    def why_waiting(self, timeout: float) -> str:
        gone = [name for (name, _), parent in zip(self.parents, self.last, strict=False) if parent is None]
        if gone or not self.last:
            return f"not done after {timeout:.0f}s: parent {', '.join(gone) or '?'} does not exist"
        if self.expected_status is not None:
            document = self.expected_status
            found = "; ".join(
                f"{document.file}:{document.line_of(d.path)}: status.{d.describe()}"
                for d in self.status_differences()[:5]
            )
            return f"not done after {timeout:.0f}s: the status does not match what is expected: {found}"
        waiting = [
            f"{parent['metadata']['name']}: {self.example.why_not_ready(parent)}"
            for parent in self.last
            if parent and not parents.ready_at_generation(parent)
        ]
        return f"not Ready after {timeout:.0f}s: {'; '.join(waiting)}"


def run(
    chosen: Sequence[kinds.Kind],
    *,
    timeout: float = 120.0,
    update: bool = False,
    echo: Callable[[str], None] = print,
) -> Report:
    """Start a local control plane with one kwok node, install the kinds' CRDs, run the engine on
    just these kinds, and test every example of each; everything is torn down before returning,
    also when interrupted."""
    from engine.localcluster import LocalCluster
    from engine.runtime.serving import manager
    from engine.tools import manifests

    began = time.monotonic()
    examples = [Example(kind, path) for kind in chosen for path in kind.examples]
    outcomes: list[Outcome] = []
    missing = [kind for kind in chosen if not kind.examples]
    for kind in missing:
        outcomes.append(
            Outcome(Example(kind, kind.directory / kinds.EXAMPLES_DIR), "", None, ("no examples",))
        )
        echo(f"FAIL {kind.name}: no examples in {kind.directory / kinds.EXAMPLES_DIR}")
    crds = crds_dirs(chosen)
    if not examples:
        return Report(tuple(outcomes), time.monotonic() - began)
    echo(f"starting a local control plane with one node for {len(examples)} example(s)...")
    with (
        LocalCluster(nodes=1) as cluster,
        _served(chosen) as root,
        contextlib.closing(Kube.from_kubeconfig(str(cluster.kubeconfig))) as kube,
    ):
        plane_seconds = time.monotonic() - began
        for directory in crds:
            manifests.install_crds(kube, directory)
        manifests.install_crds(kube, None, kinds_=chosen)
        engine = manager.Engine(kube, root, manager.Options(workers=2))
        engine.start()
        try:
            _wait_for(engine.synced, 60.0, "the engine's caches to fill", cluster.check)
            names = ", ".join(kind.name for kind in chosen)
            echo(f"control plane up in {plane_seconds:.1f}s; engine serving {names}")
            echo(isolation.SHARED)
            running = _start_all(kube, examples, outcomes, echo)
            for outcome in _finish(kube, engine, running, timeout, update, cluster.check, root, echo):
                outcomes.append(outcome)
        finally:
            engine.stop()
    report = Report(tuple(outcomes), time.monotonic() - began, plane_seconds)
    echo(summary(report))
    return report


def _start_all(
    kube: Kube, examples: Sequence[Example], outcomes: list[Outcome], echo: Callable[[str], None]
) -> list[_Running]:
    """Make every example's namespace, then apply the examples whose cluster-scoped objects
    clash with no other's; an example not started has its outcome added to ``outcomes``."""
    # Namespaces first: waiting for each one's ServiceAccount between two applies would
    # add to the first examples' timings.
    namespaces = isolation.namespace_names([(e.kind.name, e.path.stem) for e in examples])
    for namespace in namespaces:
        _make_namespace(kube, namespace)
    clashing = isolation.clashes(
        [(e.name, _cluster_scoped(kube, e, ns)) for e, ns in zip(examples, namespaces, strict=True)]
    )
    running: list[_Running] = []
    for index, (example, namespace) in enumerate(zip(examples, namespaces, strict=True)):
        started: _Running | Outcome
        if index in clashing:
            started = Outcome(example, namespace, None, tuple(f"not run: {p}" for p in clashing[index]))
        else:
            started = _start(kube, example, namespace)
        if isinstance(started, _Running):
            running.append(started)
            continue
        echo_outcome(started, echo)
        outcomes.append(started)
    return running


@contextlib.contextmanager
def _served(chosen: Sequence[kinds.Kind]) -> Iterator[Path]:
    """A templates folder holding just the chosen kinds, as links to their folders: the engine
    serves every kind of the folder it is given, and the others may not have their CRDs here."""
    with tempfile.TemporaryDirectory(prefix="stencil-test-kinds-") as tmp:
        root = Path(tmp)
        for kind in chosen:
            (root / kind.name).symlink_to(kind.directory.resolve(), target_is_directory=True)
        yield root


def _make_namespace(kube: Kube, namespace: str) -> None:
    """A fresh namespace for an example, ready for pods."""
    kube.request(
        "POST",
        "/api/v1/namespaces",
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}},
    )
    # Pods are refused in a namespace until its default ServiceAccount exists.
    _wait_for(
        lambda: kube.get(_SERVICE_ACCOUNTS, "default", namespace) is not None,
        30.0,
        f"the default ServiceAccount of namespace {namespace}",
    )


def _cluster_scoped(kube: Kube, example: Example, namespace: str) -> list[tuple[ChildId, str]]:
    """The cluster-scoped objects the example makes, each with where it comes from: its own
    objects, and its parents' children as the templates render them before anything exists.
    A parent whose templates do not render makes nothing here; the engine says why."""
    from engine.tools import manifests

    made: list[tuple[ChildId, str]] = []
    kind = example.kind
    given = manifests.read(example.fixtures)  # what the parents' references read, as in the cluster
    for doc in manifests.read([*example.fixtures, example.path]):
        namespaced = kube.is_namespaced(doc["apiVersion"], doc["kind"])
        if not namespaced:
            made.append((ChildId.of(doc), str(example.path)))
        if (doc["apiVersion"], doc["kind"]) != (kind.api_version, kind.kind):
            continue
        meta = {**doc["metadata"], "uid": str(uuid.uuid4())}
        if namespaced:
            meta["namespace"] = namespace
        try:
            rendered, _ = door.offline(
                kind, {**doc, "metadata": meta}, (), given, is_namespaced=kube.is_namespaced
            )
        except errors.StencilError:
            continue
        for child in rendered.located:
            if not child.child["metadata"].get("namespace"):
                file, line = child.where(("metadata", "name"))
                made.append((ChildId.of(child.child), f"{file}:{line}"))
    return made


def _start(kube: Kube, example: Example, namespace: str) -> _Running | Outcome:
    """Apply the fixtures and then the example into its namespace, and start its clock; an
    ``Outcome`` instead if the API server refuses one of their objects."""
    from engine.tools import manifests

    expected = None
    if example.expected_status.is_file():
        expected = documents.Document.read(example.expected_status, errors.StencilError)
    applied: list[Obj] = []
    started = time.monotonic()
    for path in [*example.fixtures, example.path]:
        started = time.monotonic()  # the example's clock starts with its own apply
        try:
            applied = manifests.apply_all(kube, manifests.read([path]), namespace)
        except errors.ApiError as error:
            return Outcome(example, namespace, None, (f"{path}: {error}",))
    kind = example.kind
    applied_parents = [
        (obj["metadata"]["name"], obj["metadata"].get("namespace"))
        for obj in applied
        if obj.get("kind") == kind.kind and obj.get("apiVersion") == kind.api_version
    ]
    if not applied_parents:
        raise UsageError(f"{example.path}: no {kind.kind} ({kind.api_version}) in the example")
    return _Running(example, namespace, applied_parents, started, expected)


def _finish(
    kube: Kube,
    engine: Engine,
    running: list[_Running],
    timeout: float,
    update: bool,
    check: Callable[[], None],
    root: Path,
    echo: Callable[[str], None],
) -> Iterator[Outcome]:
    """Wait for every example at once, and check each as soon as it is done or out of time."""
    pending = list(running)
    while pending:
        for item in list(pending):
            res = kube.resource(item.example.kind.api_version, item.example.kind.kind)
            item.last = [kube.get(res, name, namespace) for name, namespace in item.parents]
            seconds = time.monotonic() - item.started
            refused = [refusals.refusal(parent) for parent in item.last if parent]
            if item.done():
                outcome = _check(kube, engine, item, seconds, update)
            elif any(refused):
                problems = [_refused(kube, engine, item, refusal) for refusal in refused if refusal]
                outcome = Outcome(
                    item.example,
                    item.namespace,
                    None,
                    tuple(_real_paths(p, root, item.example.kind) for p in problems),
                    stopped=seconds,
                )
            elif seconds > timeout:
                problem = _real_paths(item.why_waiting(timeout), root, item.example.kind)
                outcome = Outcome(item.example, item.namespace, None, (problem,), stopped=seconds)
            else:
                continue
            pending.remove(item)
            echo_outcome(outcome, echo)
            yield outcome
        check()
        time.sleep(POLL)


def _refused(kube: Kube, engine: Engine, item: _Running, refusal: refusals.Refusal) -> str:
    """The refusal, at the template line of the child it is about: the parent is rendered again
    as the engine rendered it, from the live parent and children."""
    kind = item.example.kind
    located: list[rendering.Located] = []
    for parent in item.last:
        if not parent:
            continue
        observed = _live_children(kube, engine, kind, str(parent["metadata"]["uid"]))
        resolved = door.references(
            kind, parent, functools.partial(diffing.live_lookup, kube), kube.is_namespaced
        )
        try:
            located += door.render(kind, parent, observed, resolved, is_namespaced=kube.is_namespaced).located
        except errors.StencilError:
            continue  # a template that does not render: the refusal's message says where
    return f"refused, not retried: {refusals.report(refusal, located)}"


def _check(kube: Kube, engine: Engine, item: _Running, seconds: float, update: bool) -> Outcome:
    """Compare the example's live children with its golden file, or write the file; and what the
    offline commands make of the same parent with what live did (``agreement``)."""
    from engine.tools import manifests

    kind = item.example.kind
    live = {str(parent["metadata"]["uid"]): parent for parent in item.last if parent}
    children = {uid: _live_children(kube, engine, kind, uid) for uid in live}
    forms = [golden.golden_form(child, item.namespace, list(live)) for uid in live for child in children[uid]]
    problems, diff, wrote = golden.check(item.example.golden, forms, update=update)
    fixtures = manifests.read(item.example.fixtures)
    for uid, parent in live.items():
        related = [
            obj
            for api_version, observed in kind.observe
            for obj in diffing.labelled(kube, api_version, observed, uid)
        ]
        problems += agreement.disagreements(
            kind, parent, children[uid], related, fixtures, is_namespaced=kube.is_namespaced
        )
    return Outcome(item.example, item.namespace, seconds, tuple(problems), diff, wrote)


def _live_children(kube: Kube, engine: Engine, kind: kinds.Kind, uid: str) -> list[Obj]:
    """The parent's children as the API server has them, managed fields included (the engine's
    caches drop those): every object labelled with its uid, of each kind it may have made."""
    found: list[Obj] = []
    for res in engine.children.resources(kind):
        items, _ = kube.list(res, label_selector=f"{placement.PARENT_UID_LABEL}={uid}")
        found.extend(items)
    return found


def _real_paths(text: str, root: Path, kind: kinds.Kind) -> str:
    """``text`` with the served link folder's paths given as the kind folder's own."""
    return text.replace(str(root / kind.name), str(kind.directory))


def _wait_for(
    probe: Callable[[], bool], timeout: float, what: str, check: Callable[[], None] = lambda: None
) -> None:
    deadline = time.monotonic() + timeout
    while not probe():
        check()
        if time.monotonic() > deadline:
            raise errors.StencilError(f"timed out after {timeout:.0f}s waiting for {what}")
        time.sleep(POLL)
