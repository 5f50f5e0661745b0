"""An unschedulable Pod is InProgress for kstatus's 15 seconds after its creation, then Failed."""

import datetime
from typing import Any

import pytest

from engine.core.decisions.health import SCHEDULE_WINDOW, Health, assess

CREATED = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
SCHEDULER = "0/3 nodes are available: 3 Insufficient cpu."


def unschedulable(created: datetime.datetime | None) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": "web-0"}
    if created is not None:
        metadata["creationTimestamp"] = created.strftime("%Y-%m-%dT%H:%M:%SZ")
    scheduled = {"type": "PodScheduled", "status": "False", "reason": "Unschedulable", "message": SCHEDULER}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "status": {"phase": "Pending", "conditions": [scheduled]},
    }


def test_unschedulable_pod_within_the_window_is_in_progress() -> None:
    now = CREATED + SCHEDULE_WINDOW - datetime.timedelta(seconds=1)

    assert assess(unschedulable(CREATED), now=now) == Health("InProgress", f"not scheduled yet: {SCHEDULER}")


def test_unschedulable_pod_is_failed_once_the_window_has_passed() -> None:
    at_the_end = CREATED + SCHEDULE_WINDOW

    assert assess(unschedulable(CREATED), now=at_the_end) == Health("Failed", f"unschedulable: {SCHEDULER}")


def test_now_may_be_an_rfc3339_string() -> None:
    assert assess(unschedulable(CREATED), now="2026-01-01T00:00:05Z").status == "InProgress"
    assert assess(unschedulable(CREATED), now="2026-01-01T01:00:00+01:00").status == "InProgress"
    assert assess(unschedulable(CREATED), now="2026-01-01T00:00:20Z").status == "Failed"


def test_unschedulable_pod_without_a_readable_creation_time_is_failed() -> None:
    # kstatus reads a missing or unreadable creationTimestamp as the zero time: long ago.
    garbled = unschedulable(CREATED)
    garbled["metadata"]["creationTimestamp"] = "yesterday"

    assert assess(unschedulable(None), now=CREATED).status == "Failed"
    assert assess(garbled, now=CREATED).status == "Failed"


def test_without_now_the_wall_clock_decides() -> None:
    just_created = datetime.datetime.now(datetime.UTC)

    assert assess(unschedulable(just_created)).status == "InProgress"
    assert assess(unschedulable(CREATED - datetime.timedelta(days=1))).status == "Failed"


@pytest.mark.parametrize("now", ["soon", "2026-01-01T00:00:00", datetime.datetime(2026, 1, 1)])
def test_now_that_is_not_an_aware_time_is_refused(now: str | datetime.datetime) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "status": {"phase": "Running"}}

    with pytest.raises(ValueError, match="now must be"):
        assess(pod, now=now)
