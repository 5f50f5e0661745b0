"""Prune comes last and only after every apply succeeded: a failed apply leaves everything
else in place, says why on the parent, and is retried (the reconcile raises)."""

from pathlib import Path

import pytest

from engine.core.model import errors
from engine.core.model.objects import Key
from tests.seam._fake import FakeKube
from tests.seam._harness import EMPTY_CONFIG_MAP_A, child_of, conditions, engine_for, parent


def test_failed_apply_keeps_the_child_that_would_be_pruned(tmp_path: Path) -> None:
    fake = FakeKube()
    owner = parent(fake)
    child_of(fake, owner, "w-stale")  # rendered before, no longer
    fake.fail_apply["w-a"] = errors.ApiError(500, "etcdserver: request timed out")
    with engine_for(fake, tmp_path, EMPTY_CONFIG_MAP_A) as controller:
        with pytest.raises(errors.ApiError):
            controller.reconcile(Key("ns", "w"))

        assert ("DELETE", "ConfigMap ns/w-stale") not in fake.calls
        applied = conditions(fake)["ChildrenApplied"]
        assert (applied["status"], "request timed out" in applied["message"]) == ("False", True)

        del fake.fail_apply["w-a"]
        controller.reconcile(Key("ns", "w"))

        assert ("DELETE", "ConfigMap ns/w-stale") in fake.calls
