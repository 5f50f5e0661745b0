"""A child of a kind the API server does not serve (a typo in its version, a CRD not installed yet)
gives the parent a condition naming the template and the line of its apiVersion, and is looked at
again after a slow wait (installing the CRD serves it), not waited for as a cache that never fills."""

from pathlib import Path

import pytest

from engine.core.model import errors
from engine.core.model.objects import Key
from tests.seam._fake import FakeKube
from tests.seam._harness import conditions, engine_for, parent

UNSERVED = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-a
---
apiVersion: tests.stencil.dev/v2
kind: Widget
metadata:
  name: {{ name }}-inner
"""
KIND = "templates: [{file: children.yaml, collection: true}]\n"


def test_an_unserved_child_kind_is_a_condition_at_the_line_of_its_api_version(tmp_path: Path) -> None:
    fake = FakeKube()
    parent(fake)
    with engine_for(fake, tmp_path, UNSERVED, KIND) as controller, pytest.raises(errors.NotServed) as caught:
        controller.reconcile(Key("ns", "w"))

    assert caught.value.terminal is False and caught.value.retry_after == errors.NotServed.retry_after
    rendered = conditions(fake)["TemplatesRendered"]
    assert (rendered["status"], rendered["reason"]) == ("False", "KindNotServed")
    where = "children.yaml:6: apiVersion: Widget 'w-inner'"
    assert f"{where}: the API server serves no kind Widget" in rendered["message"]
    assert not [call for call in fake.calls if call[0] == "APPLY"], "nothing is applied"
