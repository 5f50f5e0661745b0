"""A template error is terminal: the parent says where, one Warning event is sent, nothing is
applied, and the key is not retried with backoff (retrying cannot help until the input
changes, and a change enqueues the parent anyway); the metrics count it as terminal."""

from pathlib import Path

import pytest

from engine.core.model import errors
from engine.core.model.objects import Key
from engine.runtime.telemetry import observability
from tests.seam._fake import FakeKube
from tests.seam._harness import CONFIG_MAP_A, conditions, engine_for, parent, worker_of

# ``spec.missing`` is on the template's line 6.
TEMPLATE = CONFIG_MAP_A + "data:\n  value: {{ spec.missing }}\n"


def test_render_error_sets_the_condition_and_sends_one_event(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    metrics = observability.Metrics()
    with engine_for(fake, tmp_path, TEMPLATE, metrics=metrics) as controller:
        with pytest.raises(errors.RenderError):
            controller.reconcile(Key("ns", "w"))
        worker_of(controller).process(Key("ns", "w"))

        rendered = conditions(fake)["TemplatesRendered"]
        assert (rendered["status"], rendered["reason"]) == ("False", "RenderFailed")
        assert "children.yaml:6" in rendered["message"] and "spec.missing" in rendered["message"]
        assert [c for c in fake.calls if c[0] == "APPLY"] == []
        assert [e["reason"] for e in fake.events] == ["RenderFailed"]
        assert [c for c in fake.calls if c[0] == "STATUS"] == [("STATUS", "Widget ns/w")]
        assert worker_of(controller).queue.num_requeues(Key("ns", "w")) == 0
        terminal = metrics.value("controller_runtime_terminal_reconcile_errors_total", controller="widget")
        assert terminal == 1
