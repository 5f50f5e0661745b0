"""An Event whose reason and message are the ones last sent for the same object is not sent again;
a deleted parent is forgotten (its uid alone), so a parent of the same name made later hears it
again, and the others' are still held back."""

from engine.runtime.reconciling import events
from tests.unit.runtime.reconciling.test_events_normal_ones_are_paced import Sink, parent


def _sent(sink: Sink) -> list[tuple[str, str, str]]:
    return [(e["involvedObject"]["uid"], e["reason"], e["message"]) for e in sink.sent]


def test_forgetting_a_parent_lets_its_events_go_out_again_and_no_others() -> None:
    sink = Sink()
    made = events.Recorder(sink)
    first, second = parent(1), parent(2)
    for obj in (first, second, first, second):
        made.emit(obj, events.WARNING, "ApplyFailed", "denied")
        made.emit(obj, events.WARNING, "RenderFailed", "x.yaml:3")
    made.flush()
    assert _sent(sink) == [
        ("uid-1", "ApplyFailed", "denied"),
        ("uid-1", "RenderFailed", "x.yaml:3"),
        ("uid-2", "ApplyFailed", "denied"),
        ("uid-2", "RenderFailed", "x.yaml:3"),
    ]

    sink.sent.clear()
    made.forget("uid-1")
    for obj in (first, second):
        made.emit(obj, events.WARNING, "ApplyFailed", "denied")
    made.emit(second, events.WARNING, "RenderFailed", "y.yaml:4")  # a new message goes out
    made.flush()
    assert _sent(sink) == [("uid-1", "ApplyFailed", "denied"), ("uid-2", "RenderFailed", "y.yaml:4")]
    made.close()


def test_forgetting_a_parent_never_seen_changes_nothing() -> None:
    sink = Sink()
    made = events.Recorder(sink)
    made.emit(parent(1), events.WARNING, "ApplyFailed", "denied")
    made.forget("uid-9")
    made.emit(parent(1), events.WARNING, "ApplyFailed", "denied")
    made.flush()
    assert len(sink.sent) == 1
    made.close()
