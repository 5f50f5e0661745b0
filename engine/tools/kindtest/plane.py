"""``stencil test``'s run: the local control plane, the engine on it, and the examples waited for.

``run`` starts a local control plane with one kwok node, installs the kinds'
CRDs, runs the engine in-process on just the chosen kinds, applies every example
into a namespace of its own (its fixtures first), and waits for all of them at
once: each until its parent is Ready at its current generation, or, with an
expected status, until the parent's status holds what that file says, and then
until that has held through the settling window with nothing written by the
engine (``settling``).  Each example is checked against its golden file as soon
as it has settled; all of it is torn down again before ``run`` returns, also on
Ctrl-C.  What the examples share, and the namespace each has of its own, is
``engine.tools.isolation``.

``update`` runs each example twice, the second time in a namespace of its own and
a moment later, so that the golden file it writes has ``${ANY}`` where the two
runs' children differ (``golden.proposed``): a value the cluster makes anew on
every run (a uid, a clusterIP, a nodePort, a token, a timestamp a template
copied) is seen to move, not guessed from a list.  An example whose cluster-scoped
objects a second run would share is run once, and said so.

A parent the API server refuses a child of (``engine.tools.refusals``) fails its
example at once, at the template line of that child: the engine retries such a
refusal, so waiting for Ready would only wait out the timeout.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.core import door
from engine.core.model import errors, kinds
from engine.core.model.children import patches, placement
from engine.core.model.identity import ChildId
from engine.core.model.language import documents
from engine.core.model.objects import Obj
from engine.core.templating import rendering
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import diffing, isolation, manifests, refusals
from engine.tools.kindtest import agreement, settling
from engine.tools.kindtest.examples import Example, UsageError, crds_dirs
from engine.tools.kindtest.report import Outcome, Report, echo_outcome, summary
from engine.tools.kindtest.runs import Run, Waits, ended

if TYPE_CHECKING:
    from engine.runtime.serving.manager import Engine

POLL = 0.2  # seconds between looks at the parents being waited for
# How long after the first runs' applies ``update`` applies the second runs: the API server's
# timestamps are whole seconds, so two runs a moment apart make two different ones.
SECOND_RUN_GAP = 1.5
ONCE = "run once, so --update marks no value that differs per run ${ANY}"
_SERVICE_ACCOUNTS = Resource("", "v1", "ServiceAccount", "serviceaccounts", namespaced=True)


def run(
    chosen: Sequence[kinds.Kind],
    *,
    timeout: float = 120.0,
    update: bool = False,
    settle: float = settling.DEFAULT_SECONDS,
    echo: Callable[[str], None] = print,
) -> Report:
    """Start a local control plane with one kwok node, install the kinds' CRDs, run the engine on
    just these kinds, and test every example of each; everything is torn down before returning,
    also when interrupted.  ``settle``: the seconds of the settling window."""
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
            running = _start_all(kube, examples, outcomes, echo, twice=update)
            waits = Waits(timeout, settle, update)
            for outcome in _finish(kube, engine, running, waits, cluster.check, root, echo):
                outcomes.append(outcome)
        finally:
            engine.stop()
    report = Report(tuple(outcomes), time.monotonic() - began, plane_seconds)
    echo(summary(report))
    return report


def _start_all(
    kube: Kube,
    examples: Sequence[Example],
    outcomes: list[Outcome],
    echo: Callable[[str], None],
    *,
    twice: bool = False,
) -> list[Run]:
    """Make every example's namespace, then apply the examples whose cluster-scoped objects
    clash with no other's; an example not started has its outcome added to ``outcomes``.
    ``twice``: each started example is applied again, a moment later, into a namespace of its
    own, unless that second run would share its cluster-scoped objects."""
    runs = [(example, False) for example in examples] + [(example, True) for example in examples if twice]
    # Namespaces first: waiting for each one's ServiceAccount between two applies would
    # add to the first examples' timings.
    namespaces = isolation.namespace_names(
        [(e.kind.name, f"{e.path.stem}/second" if again else e.path.stem) for e, again in runs]
    )
    for namespace, (example, _) in zip(namespaces, runs, strict=True):
        _make_namespace(kube, namespace)
        manifests.grant_readers(kube, [example.kind], namespace)  # as a namespace admin would
    clashing = isolation.clashes(
        [(e.name, _cluster_scoped(kube, e, ns)) for (e, _), ns in zip(runs, namespaces, strict=True)]
    )
    running: list[Run] = []
    firsts: dict[int, Run] = {}  # by the example's index
    began = time.monotonic()
    for index, ((example, again), namespace) in enumerate(zip(runs, namespaces, strict=True)):
        first = firsts.get(index - len(examples)) if again else None
        if again and first is None:
            continue  # the example itself was not run
        if again and index in clashing:
            echo(f"{example.name}: {ONCE}: a second run would share its cluster-scoped objects")
            continue
        started: Run | Outcome
        if index in clashing:
            started = Outcome(example, namespace, None, tuple(f"not run: {p}" for p in clashing[index]))
        else:
            if again:
                time.sleep(max(0.0, began + SECOND_RUN_GAP - time.monotonic()))
            started = _start(kube, example, namespace)
        if isinstance(started, Run):
            running.append(started)
            if first is not None:
                first.second, started.first = started, first
            else:
                firsts[index] = started
        elif again:
            echo(f"{example.name}: {ONCE}: {started.problems[0]}")
        else:
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


def _start(kube: Kube, example: Example, namespace: str) -> Run | Outcome:
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
    return Run(example, namespace, applied_parents, started, expected)


def _finish(
    kube: Kube,
    engine: Engine,
    running: list[Run],
    waits: Waits,
    check: Callable[[], None],
    root: Path,
    echo: Callable[[str], None],
) -> Iterator[Outcome]:
    """Wait for every example at once, and check each as soon as it has settled or is out of
    time (an example run twice, once both runs are)."""
    pending = list(running)
    while pending:
        for item in list(pending):
            if item.example.kind.decorates is not None:  # it writes no status: done once decorated
                item.decorated = functools.partial(_decorated, kube, engine, item.example.kind)
            res = kube.resource(item.example.kind.api_version, item.example.kind.kind)
            item.last = [kube.get(res, name, namespace) for name, namespace in item.parents]
            now = time.monotonic()
            seconds = now - item.started
            verdict = _look(kube, engine, item, now, waits.settle)
            refused = [refusals.refusal(parent) for parent in item.last if parent]
            if verdict is not None and verdict.state is settling.State.SETTLING:
                continue
            if verdict is not None and verdict.state is settling.State.SETTLED:
                item.ending = item.looks[-1]
            elif verdict is not None:
                ready = item.looks[0].at - item.started
                item.ending = Outcome(item.example, item.namespace, ready, verdict.problems, stopped=seconds)
            elif any(refused):
                problems = [_refused(kube, engine, item, refusal) for refusal in refused if refusal]
                item.ending = Outcome(
                    item.example,
                    item.namespace,
                    None,
                    tuple(_real_paths(p, root, item.example.kind) for p in problems),
                    stopped=seconds,
                )
            elif seconds > waits.timeout:
                problem = _real_paths(item.why_waiting(waits.timeout), root, item.example.kind)
                item.ending = Outcome(item.example, item.namespace, None, (problem,), stopped=seconds)
            else:
                continue
            pending.remove(item)
            outcome = ended(item.first or item, waits.update)
            if outcome is not None:
                outcome = _agreed(kube, item.first or item, outcome)
                if item.second in pending:  # the example failed: what its second run sees is moot
                    pending.remove(item.second)
                echo_outcome(outcome, echo)
                yield outcome
        check()
        time.sleep(POLL)


def _look(kube: Kube, engine: Engine, item: Run, now: float, settle: float) -> settling.Verdict | None:
    """This look at the example, taken into its settling window: None before the window opens,
    which it does at the first look where every parent holds what the example waits for."""
    opens = not item.looks
    if opens and not item.done():
        return None
    listed = None
    if opens or now - item.looks[0].at >= settle:
        uids = [str(parent["metadata"]["uid"]) for parent in item.last if parent]
        listed = tuple(
            child for uid in uids for child in _live_children(kube, engine, item.example.kind, uid)
        )
    item.looks.append(settling.Observation(now, tuple(item.last), listed))
    return settling.judge(item.looks, settle, item.holds, decorated=item.example.kind.decorates is not None)


def _agreed(kube: Kube, run: Run, outcome: Outcome) -> Outcome:
    """A passed ``outcome`` held to what the offline commands make of the example's settled parents
    (``agreement``): what they would say otherwise fails it."""
    from engine.tools import manifests

    look = run.ending
    if not outcome.passed or not isinstance(look, settling.Observation):
        return outcome
    kind, fixtures = run.example.kind, manifests.read(run.example.fixtures)
    found: list[str] = []
    for parent in (parent for parent in look.parents if parent):
        uid = str(parent["metadata"]["uid"])
        labelled = placement.PARENT_UID_LABEL
        children = [
            c for c in look.children or () if (c["metadata"].get("labels") or {}).get(labelled) == uid
        ]
        related = [
            obj for api, observed in kind.observe for obj in diffing.labelled(kube, api, observed, uid)
        ]
        found += agreement.disagreements(
            kind, parent, children, related, fixtures, is_namespaced=kube.is_namespaced
        )
    return dataclasses.replace(outcome, problems=tuple(found)) if found else outcome


def _refused(kube: Kube, engine: Engine, item: Run, refusal: refusals.Refusal) -> str:
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


def _decorated(kube: Kube, engine: Engine, kind: kinds.Kind, obj: Obj) -> str | None:
    """Why an object a decorator selects does not carry yet what the decorator makes of it (a child
    it renders from what is live, its patch), None once it does: a decorator writes no status."""
    live = _live_children(kube, engine, kind, str(obj["metadata"]["uid"]))
    try:
        made = door.render(kind, obj, live, is_namespaced=kube.is_namespaced)
    except errors.StencilError as error:
        return f"it does not render: {error}"
    have = {ChildId.of(child) for child in live}
    missing = [str(ChildId.of(child)) for child in made.children if ChildId.of(child) not in have]
    if missing:
        return f"not decorated yet: no {', '.join(missing[:3])}"
    if made.patches and patches.fields_of(obj, patches.manager(kind.name, obj)) is None:
        return "not decorated yet: its patch is not applied"
    return None


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
