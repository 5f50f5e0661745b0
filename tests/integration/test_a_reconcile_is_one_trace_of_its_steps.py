"""With a tracer, each reconcile is one trace: a root span ``reconcile`` naming the kind, the
parent and the outcome, whose children are the steps: render, plan, one apply per child written,
one prune per child deleted, and the status write.  Read with the SDK's in-memory exporter from
an engine that creates, then prunes, children on the real API server."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from engine.runtime.cluster.kube import Kube, Resource
from engine.runtime.telemetry import tracing
from engine.tools import manifests
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._widgets import configmap, widget, write_kind

MAIN = configmap("  value: {{ spec.value }}\n", name="{{ name }}-main")
EXTRA = "{% if spec.extra %}\n" + configmap("  value: extra\n", name="{{ name }}-extra") + "{% endif %}\n"
Trace = tuple[ReadableSpan, list[ReadableSpan]]  # a root span and the spans under it


def traces(exporter: InMemorySpanExporter) -> list[Trace]:
    """Every finished reconcile's trace, in the order they ended (a reconcile still under way has
    finished steps but no root yet: it is left out until it ends)."""
    spans: dict[int, list[ReadableSpan]] = defaultdict(list)
    for span in exporter.get_finished_spans():
        assert span.context is not None
        spans[span.context.trace_id].append(span)
    found = []
    for members in spans.values():
        roots = [s for s in members if s.parent is None]
        assert len(roots) <= 1, roots
        if roots:
            found.append((roots[0], [s for s in members if s is not roots[0]]))
    return found


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def one_with(exporter: InMemorySpanExporter, step: str) -> Callable[[], Trace | None]:
    """A probe: the first trace with a ``step`` span."""
    return lambda: next((t for t in traces(exporter) if any(s.name == step for s in t[1])), None)


def test_a_reconcile_is_a_root_span_over_its_steps(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"main.yaml": MAIN, "extra.yaml": EXTRA})
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))

    with running_engine(kube, templates, namespace, tracer=tracing.OpenTelemetry(provider)):
        manifests.apply_all(kube, [widget("p", value="v", extra=True)], namespace)
        parent = eventually(condition_is(kube, widgets, "p", namespace, "Ready", "True"), what="Ready")
        root, steps = eventually(one_with(exporter, "apply"), what="a trace of the applies")

        assert root.name == "reconcile"
        assert attributes(root) == {
            "stencil.kind": "widget",
            "stencil.namespace": namespace,
            "stencil.name": "p",
            "stencil.uid": parent["metadata"]["uid"],
            "stencil.outcome": attributes(root)["stencil.outcome"],
            "stencil.terminal": False,
        }
        assert attributes(root)["stencil.outcome"] in ("success", "requeue_after")
        assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in steps)
        assert [s.name for s in steps] == ["render", "plan", "apply", "apply", "status"]
        render, plan, *applies, status = steps
        assert attributes(render) == {"stencil.children": 2}
        assert attributes(plan) == {"stencil.applies": 2, "stencil.prunes": 0, "stencil.unchanged": 0}
        assert sorted(attributes(a)["stencil.child_name"] for a in applies) == ["p-extra", "p-main"]
        for apply in applies:
            assert attributes(apply) | {"stencil.child_name": "-"} == {
                "stencil.child_kind": "ConfigMap",
                "stencil.child_namespace": namespace,
                "stencil.child_name": "-",
                "stencil.create": True,
                "stencil.noop": False,
                "stencil.conflict": False,
            }
        assert attributes(status)["stencil.fate"] in ("written", "waits")

        exporter.clear()
        manifests.apply_all(kube, [widget("p", value="v", extra=False)], namespace)
        _, steps = eventually(one_with(exporter, "prune"), what="a trace of the prune")
        (prune,) = [s for s in steps if s.name == "prune"]
        assert attributes(prune) == {
            "stencil.child_kind": "ConfigMap",
            "stencil.child_namespace": namespace,
            "stencil.child_name": "p-extra",
            "stencil.noop": False,
        }
        assert [s.name for s in steps] == ["render", "plan", "prune", "status"]
