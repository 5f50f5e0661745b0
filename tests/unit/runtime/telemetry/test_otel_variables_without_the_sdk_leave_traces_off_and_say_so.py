"""``OTEL_*`` variables that ask for traces while the SDK is not installed: no traces, the
no-op tracer, and one warning that names the extra to install."""

from __future__ import annotations

import logging
import sys

import pytest

from engine.runtime.telemetry import tracing


def test_no_sdk_means_the_no_op_tracer_and_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318")
    monkeypatch.delenv("OTEL_SDK_DISABLED", raising=False)
    monkeypatch.delenv("OTEL_TRACES_EXPORTER", raising=False)
    for module in ("opentelemetry", "opentelemetry.distro"):
        monkeypatch.setitem(sys.modules, module, None)  # what an import finds when it is not installed

    with caplog.at_level(logging.WARNING, logger="stencil.tracing"):
        assert tracing.from_environment() is tracing.OFF

    (record,) = caplog.records
    assert "stencil-operator[otel]" in record.getMessage()
