"""JSON logs are one object per line with time, level, logger, message and the call's extra fields."""

import datetime
import json
import logging
from collections.abc import Iterator

import pytest

from engine.runtime.telemetry import logs


@pytest.fixture
def restore_root_logger() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(level)


def test_json_line_has_standard_and_extra_fields(
    restore_root_logger: None, capsys: pytest.CaptureFixture[str]
) -> None:
    logs.configure_logging("json", "DEBUG")

    logging.getLogger("stencil.controller").info(
        "reconciled %s", "web/site", extra={"kind": "DeployWebService", "key": "web/site"}
    )

    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert datetime.datetime.fromisoformat(entry.pop("time")).tzinfo == datetime.UTC
    assert entry == {
        "level": "info",
        "logger": "stencil.controller",
        "message": "reconciled web/site",
        "kind": "DeployWebService",
        "key": "web/site",
    }


def test_json_line_carries_the_exception(
    restore_root_logger: None, capsys: pytest.CaptureFixture[str]
) -> None:
    logs.configure_logging("json", "INFO")

    try:
        raise RuntimeError("boom\nsecond line")
    except RuntimeError:
        logging.getLogger("stencil").exception("failed")

    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["error"] == "boom\nsecond line"
    assert "RuntimeError" in entry["stacktrace"]
