"""Traces: each reconcile one trace, sent where the standard ``OTEL_*`` variables say.

With the ``otel`` extra installed (``pip install 'stencil-operator[otel]'``) and
``OTEL_TRACES_EXPORTER`` or an OTLP endpoint set, a reconcile is a root span ``reconcile``
(the kind, the parent's namespace, name and uid, the outcome) whose children are its steps:
``render``, ``plan``, one ``apply`` per child written and one ``prune`` per child deleted
(the child's kind, namespace and name, whether it was a no-op), and ``status``.

The reconcile knows only the ``Tracer`` protocol: ``span(name, **attributes)`` as a
``with`` block, and ``annotate`` for the span it is in.  Without traces it is handed ``OFF``,
whose every call returns one shared object at once: opentelemetry is never imported, and a
reconcile pays a few method calls (``bench/tracing_overhead.py`` measures them).  Attribute
names take the ``stencil.`` prefix, so ``child_kind=`` is ``stencil.child_kind`` in a trace.

``from_environment`` is what ``stencil run`` calls: the SDK configures itself from the
environment (exporter, endpoint, headers, sampler, resource, batching) as it does under
``opentelemetry-instrument``; Stencil only defaults the two variables that make an OTLP
endpoint alone enough (the exporter ``otlp``, over HTTP, which the extra installs).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from opentelemetry.trace import Span as OtelSpan
    from opentelemetry.trace import TracerProvider

log = logging.getLogger("stencil.tracing")

Attribute = str | bool | int | float
PREFIX = "stencil."
# Any of these set asks for traces (OTEL_TRACES_EXPORTER=none asks for none).
ASKING = ("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


class Span(Protocol):
    def set(self, **attributes: Attribute) -> None:
        """Add attributes to the span."""

    def fail(self, error: BaseException) -> None:
        """Mark the span failed by ``error`` (one the code handled, so no ``with`` block saw it)."""


class Tracer(Protocol):
    def span(self, name: str, /, **attributes: Attribute) -> contextlib.AbstractContextManager[Span]:
        """A span ``name``, child of the current one, for the ``with`` block it opens."""

    def annotate(self, **attributes: Attribute) -> None:
        """Add attributes to the current span."""


class _Off:
    """The tracer, and every span, when there are no traces: each call returns at once."""

    def span(self, name: str, /, **attributes: Attribute) -> _Off:
        return self

    def annotate(self, **attributes: Attribute) -> None:
        pass

    def set(self, **attributes: Attribute) -> None:
        pass

    def fail(self, error: BaseException) -> None:
        pass

    def __enter__(self) -> _Off:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


OFF: Tracer = _Off()


class _Recording:
    """An OpenTelemetry span behind the ``Span`` protocol."""

    def __init__(self, span: OtelSpan) -> None:
        self._span = span

    def set(self, **attributes: Attribute) -> None:
        self._span.set_attributes(_named(attributes))

    def fail(self, error: BaseException) -> None:
        from opentelemetry.trace import Status, StatusCode

        self._span.record_exception(error)
        self._span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))


class OpenTelemetry:
    """Spans through OpenTelemetry: the global tracer provider's, or ``provider`` (a test's)."""

    def __init__(self, provider: TracerProvider | None = None) -> None:
        from opentelemetry import trace

        self._trace = trace
        self._tracer = trace.get_tracer("stencil", tracer_provider=provider)

    @contextlib.contextmanager
    def span(self, name: str, /, **attributes: Attribute) -> Iterator[Span]:
        with self._tracer.start_as_current_span(name, attributes=_named(attributes)) as span:
            yield _Recording(span)

    def annotate(self, **attributes: Attribute) -> None:
        self._trace.get_current_span().set_attributes(_named(attributes))


def _named(attributes: dict[str, Attribute]) -> dict[str, Attribute]:
    return {PREFIX + key: value for key, value in attributes.items()}


def asked(environ: Mapping[str, str]) -> bool:
    """Whether the environment asks for traces."""
    if environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = environ.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    return exporter != "none" and any(environ.get(name) for name in ASKING)


def from_environment() -> Tracer:
    """The tracer the environment asks for: the SDK set up from the ``OTEL_*`` variables, or ``OFF``
    (none set, or the SDK not installed: said once)."""
    if not asked(os.environ):
        return OFF
    try:
        from opentelemetry.distro import OpenTelemetryConfigurator
    except ImportError:
        log.warning(
            "OTEL_* variables ask for traces, but the OpenTelemetry SDK is not installed "
            "(pip install 'stencil-operator[otel]'): no traces"
        )
        return OFF
    os.environ.setdefault("OTEL_TRACES_EXPORTER", "otlp")  # the specification's default exporter
    os.environ.setdefault("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")  # the one the extra installs
    os.environ.setdefault("OTEL_SERVICE_NAME", "stencil")
    OpenTelemetryConfigurator().configure()  # type: ignore[no-untyped-call]
    return OpenTelemetry()
