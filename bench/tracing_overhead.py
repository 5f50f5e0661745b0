"""What tracing costs a reconcile: nanoseconds per reconcile with the no-op tracer, against none.

A reconcile makes the same tracer calls whether traces are on or not: the worker's ``Turn``
(the root span and the metrics), the parent's uid, ``render``, ``plan``, one ``apply`` per
child written and ``status``.  This times exactly those calls, for a reconcile writing
``CHILDREN`` children, three ways:

- **none**: the worker's bookkeeping as it was before traces (the clock read twice, the
  outcome kept), no tracer at all: the floor;
- **off**: the same reconcile's calls on ``tracing.OFF``, what every engine without the
  ``OTEL_*`` variables pays;
- **sdk**: on an OpenTelemetry SDK tracer that records every span and exports none (a
  processor that drops them), the price of traces when they are asked for; only if the SDK
  is installed.

    python -m bench.tracing_overhead [CHILDREN]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from engine.runtime.telemetry import tracing, turns

ROUNDS = 5
RECONCILES = 20_000


def traced(tracer: tracing.Tracer, children: int) -> Callable[[], None]:
    """One reconcile's tracer calls, as the controller, the applier and the status writer make them."""

    def reconcile() -> None:
        with turns.Turn(None, tracer, "widget", "ns/w") as turn:
            tracer.annotate(uid="00000000-0000-0000-0000-000000000001")
            with tracer.span("render") as span:
                span.set(children=children)
            with tracer.span("plan") as span:
                span.set(applies=children, prunes=0, unchanged=0)
            for i in range(children):
                about = {"child_kind": "ConfigMap", "child_namespace": "ns", "child_name": f"w-{i}"}
                with tracer.span("apply", create=False, **about) as span:
                    span.set(noop=False, conflict=False)
            with tracer.span("status") as span:
                span.set(fate="written")
            turn.outcome = "success"

    return reconcile


def untraced(children: int) -> Callable[[], None]:
    """The bookkeeping a reconcile did before traces: the clock read twice, the outcome kept."""

    def reconcile() -> None:
        started = time.monotonic()
        outcome = "success"
        for i in range(children):
            _ = f"w-{i}"  # the child's name, which the traced loop formats too
        _ = (outcome, time.monotonic() - started)

    return reconcile


def ns_per_call(call: Callable[[], None]) -> float:
    """The best of ``ROUNDS`` rounds of ``RECONCILES`` calls, in nanoseconds per call."""
    best = float("inf")
    for _ in range(ROUNDS):
        started = time.perf_counter_ns()
        for _ in range(RECONCILES):
            call()
        best = min(best, (time.perf_counter_ns() - started) / RECONCILES)
    return best


def recording_tracer() -> tracing.Tracer | None:
    """An SDK tracer recording every span and exporting none, or None without the SDK."""
    try:
        from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
    except ImportError:
        return None
    provider = TracerProvider()
    provider.add_span_processor(SpanProcessor())  # the base processor: each span ends, then is dropped
    return tracing.OpenTelemetry(provider)


def main(children: int = 3) -> None:
    none = ns_per_call(untraced(children))
    off = ns_per_call(traced(tracing.OFF, children))
    print(f"a reconcile writing {children} children, best of {ROUNDS} x {RECONCILES:,} reconciles")
    print(f"  none (no tracer)        {none:10,.0f} ns/reconcile")
    print(f"  off  (tracing.OFF)      {off:10,.0f} ns/reconcile   (+{off - none:,.0f} ns)")
    sdk_tracer = recording_tracer()
    if sdk_tracer is None:
        print("  sdk                     (the OpenTelemetry SDK is not installed)")
        return
    sdk = ns_per_call(traced(sdk_tracer, children))
    print(f"  sdk  (recording)        {sdk:10,.0f} ns/reconcile   (+{sdk - none:,.0f} ns)")


if __name__ == "__main__":
    main(*(int(arg) for arg in sys.argv[1:2]))
