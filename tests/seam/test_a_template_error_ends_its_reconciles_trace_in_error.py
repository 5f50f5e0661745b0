"""A reconcile that fails ends its trace in error: the root span says the outcome and that the
error is terminal, and the step that failed (here: render) holds the exception."""

from pathlib import Path

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

from engine.core.model.objects import Key
from engine.runtime.telemetry import tracing
from tests.seam._fake import FakeKube
from tests.seam._harness import CONFIG_MAP_A, engine_for, parent, worker_of

TEMPLATE = CONFIG_MAP_A + "data:\n  value: {{ spec.missing }}\n"


def test_the_root_span_and_the_render_span_say_the_error(tmp_path: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    fake = FakeKube()
    parent(fake)
    with engine_for(fake, tmp_path, TEMPLATE, tracer=tracing.OpenTelemetry(provider)) as controller:
        worker_of(controller).process(Key("ns", "w"))

    spans = {span.name: span for span in exporter.get_finished_spans()}
    assert sorted(spans) == ["reconcile", "render", "status"]
    root, render = spans["reconcile"], spans["render"]
    assert root.attributes is not None
    assert (root.attributes["stencil.outcome"], root.attributes["stencil.terminal"]) == ("error", True)
    assert root.status.status_code is StatusCode.ERROR
    assert "spec.missing" in (root.status.description or "")
    assert render.status.status_code is StatusCode.ERROR
    assert [event.name for event in render.events] == ["exception"]
