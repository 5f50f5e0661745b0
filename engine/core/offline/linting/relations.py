"""Mistakes between children: references from one rendered child to another that point nowhere.

Each child can be valid on its own and the set still broken: a Deployment whose
selector does not select its own pod template (the API server refuses it), a
container mounting a volume its pod does not declare (refused too), a Service
whose selector matches no pod the kind makes, a named ``targetPort`` no selected
container has, an Ingress backend or an HPA's ``scaleTargetRef`` naming a child
that is not rendered, a volume of a ConfigMap, Secret or claim the kind does not
make.  kube-linter's dangling-object checks find the same over plain manifests;
here they run over each example's rendered children, so each is reported at the
template line that wrote the field (``rendering.Located.where``).

The checks take the children of one parent at a time: a Service of one example
must not be matched with the pods of another.  What the API server refuses is an
error.  A name that points nowhere is an error when the kind renders objects of
the target's kind (a typo among its own), and a warning when it renders none,
since the target may be made outside the kind; ``external`` names the objects
known to be (the kind's external references), which are never reported.  A
ConfigMap, Secret or claim a volume names is often made by someone else, so a
missing one is only a warning.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.core.model.identity import ChildId
from engine.core.model.objects import View
from engine.core.offline.childschemas.problems import FieldPath, Problem
from engine.core.offline.linting.findings import Finding
from engine.core.templating import rendering

RELATIONS = "relations"  # the check id of every finding here


# Where each kind keeps the pod template it runs; a Pod is its own.
POD_TEMPLATES: Mapping[str, FieldPath] = {
    "Pod": (),
    "Deployment": ("spec", "template"),
    "StatefulSet": ("spec", "template"),
    "DaemonSet": ("spec", "template"),
    "ReplicaSet": ("spec", "template"),
    "ReplicationController": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
}
# The workloads whose selector the API server requires to select their own pod template.
_SELECTING = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job")


@dataclass(frozen=True)
class _Pod:
    """A pod template some child renders, at ``at`` inside it."""

    owner: View
    at: FieldPath
    labels: Mapping[str, Any]
    spec: Mapping[str, Any]

    @property
    def namespace(self) -> str:
        return ChildId.of(self.owner).namespace

    def containers(self) -> Iterator[tuple[FieldPath, Mapping[str, Any]]]:
        for key in ("initContainers", "containers"):
            for index, container in enumerate(_list(self.spec.get(key))):
                if isinstance(container, Mapping):
                    yield (*self.at, "spec", key, index), container


def check_relations(
    located: Sequence[rendering.Located], *, external: Collection[ChildId] = (), context: str = ""
) -> list[Finding]:
    """What is wrong between the children of one parent, each at the template line of its field."""
    findings: list[Finding] = []
    for index, problem in problems([one.child for one in located], external=external):
        file, line = located[index].where(problem.path)
        message = f"{located[index].child.get('kind')} {problem}{context}"
        findings.append(Finding(file, line, None, problem.severity, message, RELATIONS))
    return findings


def problems(children: Sequence[View], *, external: Collection[ChildId] = ()) -> list[tuple[int, Problem]]:
    """What is wrong between ``children``, the children of one parent: the index of the child and its
    problem, with a path into it."""
    pods = [pod for child in children if (pod := _pod_of(child)) is not None]
    known = _Known(pods, {ChildId.of(child): child for child in children}, frozenset(external))
    found: list[tuple[int, Problem]] = []
    for index, child in enumerate(children):
        check = _BY_KIND.get(str(child.get("kind")))
        of_child = check(child, known) if check is not None else []
        pod = _pod_of(child)
        if pod is not None:
            of_child += _mounts(pod) + _volumes(pod, known)
        found += [(index, problem) for problem in of_child]
    return found


@dataclass(frozen=True)
class _Known:
    pods: list[_Pod]
    children: Mapping[ChildId, Mapping[str, Any]]
    external: frozenset[ChildId]

    @property
    def rendered(self) -> Collection[ChildId]:
        return self.children.keys()

    def missing(self, target: ChildId, what: str) -> Problem | None:
        """Why ``target`` (named by ``what``) points nowhere, with no path yet; None if it is rendered
        or external."""
        if target in self.rendered or target in self.external:
            return None
        same = sorted(c.name for c in self.rendered if (c.group, c.kind) == (target.group, target.kind))
        if same:
            message = f"{what} names {target.kind} {target.name}, which the kind does not render "
            return Problem((), message + f"(it renders {target.kind} {', '.join(same)})")
        message = (
            f"{what} names {target.kind} {target.name}, and the kind renders no {target.kind}: "
            "if it is made outside the kind, declare it as an external reference"
        )
        return Problem((), message, "warning")


def _pod_of(child: View) -> _Pod | None:
    at = POD_TEMPLATES.get(str(child.get("kind")))
    if at is None:
        return None
    template = _get(child, at)
    if not isinstance(template, Mapping):
        return None
    labels, spec = _get(template, ("metadata", "labels")), template.get("spec")
    return _Pod(
        child, at, labels if isinstance(labels, Mapping) else {}, spec if isinstance(spec, Mapping) else {}
    )


# -- a workload and its own pods ------------------------------------------------------------------


def _selector(child: View, known: _Known) -> list[Problem]:
    """A selector that does not select the workload's own pod template: the API server refuses it."""
    kind, spec = str(child.get("kind")), child.get("spec") or {}
    if kind == "Job" and spec.get("manualSelector") is not True:
        return []  # the API server writes a Job's selector itself
    pod, selector = _pod_of(child), spec.get("selector")
    if pod is None or not isinstance(selector, Mapping):
        return []
    labels = f"the pod template's labels ({_shown(pod.labels)}): the API server refuses it"
    return [
        Problem(("spec", "selector", *path), f"{requirement} does not select {labels}")
        for path, requirement in _unmet(selector, pod.labels)
    ]


def _unmet(selector: Mapping[str, Any], labels: Mapping[str, Any]) -> list[tuple[FieldPath, str]]:
    """Each requirement of the label selector ``selector`` that ``labels`` does not meet: its path and how
    it reads."""
    have = {str(k): str(v) for k, v in labels.items()}
    unmet: list[tuple[FieldPath, str]] = []
    for key, value in (selector.get("matchLabels") or {}).items():
        if have.get(str(key)) != str(value):
            unmet.append((("matchLabels", key), f"{key}={value}"))
    for index, expression in enumerate(_list(selector.get("matchExpressions"))):
        if not isinstance(expression, Mapping):
            continue
        key, operator = str(expression.get("key")), expression.get("operator")
        values = {str(v) for v in _list(expression.get("values"))}
        met = {
            "In": have.get(key) in values,
            "NotIn": have.get(key) not in values,
            "Exists": key in have,
            "DoesNotExist": key not in have,
        }.get(str(operator), True)
        if not met:
            unmet.append((("matchExpressions", index), f"{key} {operator} {sorted(values)}".rstrip(" []")))
    return unmet


def _mounts(pod: _Pod) -> list[Problem]:
    """A volumeMount naming no volume of its pod: the API server refuses it."""
    names = {str(v.get("name")) for v in _list(pod.spec.get("volumes")) if isinstance(v, Mapping)}
    if pod.owner.get("kind") == "StatefulSet":
        claims = _get(pod.owner, ("spec", "volumeClaimTemplates"))
        names |= {str(_get(c, ("metadata", "name"))) for c in _list(claims) if isinstance(c, Mapping)}
    problems = []
    for path, container in pod.containers():
        for index, mount in enumerate(_list(container.get("volumeMounts"))):
            name = mount.get("name") if isinstance(mount, Mapping) else None
            if name is not None and str(name) not in names:
                message = f"container {container.get('name')} mounts {name}, which is no volume of its pod"
                known = f" ({', '.join(sorted(names))})" if names else " (it has none)"
                problems.append(Problem((*path, "volumeMounts", index, "name"), message + known))
    return problems


# The objects a volume names: where in the volume, the field holding the name, and their kind.
_VOLUME_SOURCES: tuple[tuple[str, str, str], ...] = (
    ("configMap", "name", "ConfigMap"),
    ("secret", "secretName", "Secret"),
    ("persistentVolumeClaim", "claimName", "PersistentVolumeClaim"),
)
_PROJECTED_SOURCES: tuple[tuple[str, str, str], ...] = (
    ("configMap", "name", "ConfigMap"),
    ("secret", "name", "Secret"),
)


def _volumes(pod: _Pod, known: _Known) -> list[Problem]:
    """A volume of a ConfigMap, Secret or claim that the kind does not render: a warning, as it may be made
    outside the kind."""
    problems = []
    for index, volume in enumerate(_list(pod.spec.get("volumes"))):
        if not isinstance(volume, Mapping):
            continue
        at: FieldPath = (*pod.at, "spec", "volumes", index)
        named = [((*at, key), volume.get(key), field, kind) for key, field, kind in _VOLUME_SOURCES]
        for number, projected in enumerate(_list(_get(volume, ("projected", "sources")))):
            for key, field, kind in _PROJECTED_SOURCES:
                source = _get(projected, (key,))
                named.append(((*at, "projected", "sources", number, key), source, field, kind))
        for path, source, field, kind in named:
            if not isinstance(source, Mapping) or source.get(field) is None or source.get("optional") is True:
                continue
            target = ChildId("", "v1", kind, pod.namespace, str(source[field]))
            if target not in known.rendered and target not in known.external:
                message = (
                    f"volume {volume.get('name')} names {kind} {target.name}, which the kind does not "
                    "render: if it is made outside the kind, declare it as an external reference"
                )
                problems.append(Problem((*path, field), message, "warning"))
    return problems


# -- a Service and the pods it selects ------------------------------------------------------------


def _service(child: View, known: _Known) -> list[Problem]:
    """A selector that matches no pod template the kind renders, or a named targetPort no selected
    container has."""
    spec, namespace = child.get("spec") or {}, ChildId.of(child).namespace
    selector = spec.get("selector")
    if not isinstance(selector, Mapping) or not selector:
        return []  # a Service without a selector has its endpoints made by hand
    selected = [
        pod
        for pod in known.pods
        if pod.namespace == namespace and all(str(pod.labels.get(k)) == str(v) for k, v in selector.items())
    ]
    if not selected:
        return [_selects_nothing(selector, known, namespace)]
    offered = {
        str(port.get("name"))
        for pod in selected
        for _, container in pod.containers()
        for port in _list(container.get("ports"))
        if isinstance(port, Mapping) and port.get("name") is not None
    }
    problems = []
    for index, port in enumerate(_list(spec.get("ports"))):
        target = port.get("targetPort") if isinstance(port, Mapping) else None
        if isinstance(target, str) and target not in offered:
            owners = ", ".join(sorted({str(ChildId.of(pod.owner)) for pod in selected}))
            ports = f"({', '.join(sorted(offered))})" if offered else "(they name none)"
            message = f"targetPort {target} is no named port of the containers it selects in {owners} {ports}"
            problems.append(Problem(("spec", "ports", index, "targetPort"), message))
    return problems


def _selects_nothing(selector: Mapping[str, Any], known: _Known, namespace: str) -> Problem:
    wanted = _shown(selector)
    if any(pod.namespace == namespace for pod in known.pods):
        shown = "; ".join(
            f"{ChildId.of(pod.owner).kind} {ChildId.of(pod.owner).name}: {_shown(pod.labels)}"
            for pod in known.pods
            if pod.namespace == namespace
        )
        return Problem(("spec", "selector"), f"{wanted} matches no pod template the kind renders ({shown})")
    message = (
        f"{wanted} matches no pod template, and the kind renders none: "
        "if the pods are made outside the kind, this is expected"
    )
    return Problem(("spec", "selector"), message, "warning")


# -- an Ingress and an HPA, by name ---------------------------------------------------------------


def _ingress(child: View, known: _Known) -> list[Problem]:
    """A backend naming a Service the kind does not render, or a port that Service does not have."""
    spec, namespace = child.get("spec") or {}, ChildId.of(child).namespace
    backends: list[tuple[FieldPath, Any]] = [(("spec", "defaultBackend"), spec.get("defaultBackend"))]
    for i, rule in enumerate(_list(spec.get("rules"))):
        for j, path in enumerate(_list(_get(rule, ("http", "paths")))):
            backends.append((("spec", "rules", i, "http", "paths", j, "backend"), _get(path, ("backend",))))
    problems = []
    for at, backend in backends:
        service = _get(backend, ("service",))
        if not isinstance(service, Mapping) or service.get("name") is None:
            continue
        target = ChildId("", "v1", "Service", namespace, str(service["name"]))
        missing = known.missing(target, "the backend")
        if missing is not None:
            problems.append(Problem((*at, "service", "name"), missing.message, missing.severity))
        elif target in known.rendered:
            problems += _backend_port(at, service, known.children[target])
    return problems


def _backend_port(at: FieldPath, service: Mapping[str, Any], target: Mapping[str, Any]) -> list[Problem]:
    """A backend's port by number or name that the Service it names does not have."""
    ports = [p for p in _list(_get(target, ("spec", "ports"))) if isinstance(p, Mapping)]
    port = service.get("port")
    for key, field in (("number", "port"), ("name", "name")):
        wanted = port.get(key) if isinstance(port, Mapping) else None
        if wanted is not None and all(str(p.get(field)) != str(wanted) for p in ports):
            has = ", ".join(str(p.get(field)) for p in ports if p.get(field) is not None) or "none"
            message = f"the backend's port {key} {wanted} is no port of Service {service.get('name')} ({has})"
            return [Problem((*at, "service", "port", key), message)]
    return []


def _hpa(child: View, known: _Known) -> list[Problem]:
    """A scaleTargetRef naming no workload the kind renders."""
    ref = _get(child, ("spec", "scaleTargetRef"))
    if not isinstance(ref, Mapping) or ref.get("name") is None:
        return []
    namespace = ChildId.of(child).namespace
    target = ChildId.at(str(ref.get("apiVersion") or ""), str(ref.get("kind")), namespace, str(ref["name"]))
    missing = known.missing(target, "scaleTargetRef")
    if missing is None:
        return []
    return [Problem(("spec", "scaleTargetRef", "name"), missing.message, missing.severity)]


_BY_KIND: Mapping[str, Callable[[View, _Known], list[Problem]]] = {
    **dict.fromkeys(_SELECTING, _selector),
    "Service": _service,
    "Ingress": _ingress,
    "HorizontalPodAutoscaler": _hpa,
}


# -- reading plain dicts --------------------------------------------------------------------------


def _get(value: Any, path: FieldPath) -> Any:
    for key in path:
        if isinstance(key, str) and isinstance(value, Mapping):
            value = value.get(key)
        elif isinstance(key, int) and isinstance(value, list) and 0 <= key < len(value):
            value = value[key]
        else:
            return None
    return value


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _shown(labels: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in labels.items()) or "no labels"
