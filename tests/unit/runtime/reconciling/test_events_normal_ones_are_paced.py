"""Normal events go out at a bounded pace, so a thousand parents created at once do not add a
thousand writes; Warning events are never paced, and what is dropped is counted."""

from typing import Any

from engine.runtime.reconciling import events


class Sink:
    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    def request(self, method: str, path: str, body: Any = None) -> Any:
        self.sent.append(body)
        return body


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def parent(i: int) -> dict[str, Any]:
    return {
        "apiVersion": "samplecrd.k8s.io/v1",
        "kind": "Network",
        "metadata": {"name": f"net-{i}", "namespace": "default", "uid": f"uid-{i}"},
    }


def recorder(burst: int = 3, per_second: float = 2.0) -> tuple[events.Recorder, Sink, Clock, list[str]]:
    sink, clock, drops = Sink(), Clock(), list[str]()
    made = events.Recorder(sink, normal=events.Bucket(burst, per_second, clock), on_drop=drops.append)
    return made, sink, clock, drops


def test_a_burst_of_normal_events_is_cut_to_the_bucket_then_refills_at_its_pace() -> None:
    made, sink, clock, drops = recorder(burst=3, per_second=2.0)
    for i in range(10):
        made.emit(parent(i), events.NORMAL, "Created", f"created ConfigMap net-{i}-network")
    made.flush()
    assert [e["involvedObject"]["name"] for e in sink.sent] == ["net-0", "net-1", "net-2"]
    assert drops == [events.PACED] * 7 and made.dropped == 7

    clock.now += 1.0  # two more tokens
    for i in range(10, 14):
        made.emit(parent(i), events.NORMAL, "Created", "created")
    made.close()
    assert [e["involvedObject"]["name"] for e in sink.sent[3:]] == ["net-10", "net-11"]
    assert made.dropped == 9


def test_warnings_are_sent_when_normal_events_are_over_their_pace() -> None:
    made, sink, _, drops = recorder(burst=1, per_second=0.0)
    made.emit(parent(0), events.NORMAL, "Created", "created")
    made.emit(parent(1), events.NORMAL, "Created", "created")
    for i in range(5):
        made.emit(parent(i), events.WARNING, "ApplyFailed", "the API server refused it")
    made.close()
    assert [(e["type"], e["involvedObject"]["name"]) for e in sink.sent] == [
        ("Normal", "net-0"),
        *[("Warning", f"net-{i}") for i in range(5)],
    ]
    assert drops == [events.PACED]


def test_a_paced_out_event_is_sent_when_it_happens_again_later() -> None:
    made, sink, clock, _ = recorder(burst=1, per_second=1.0)
    made.emit(parent(0), events.NORMAL, "Updated", "updated Deployment web")
    made.emit(parent(1), events.NORMAL, "Updated", "updated Deployment web")  # over the pace
    clock.now += 1.0
    made.emit(parent(1), events.NORMAL, "Updated", "updated Deployment web")  # not taken for a repeat
    made.close()
    assert [e["involvedObject"]["name"] for e in sink.sent] == ["net-0", "net-1"]
