"""``OwnWrites``: an event of an object being written is held until the writes end, and marked
as ours only if its version is one an answer carried; a deletion, another writer's version and
the events of a failed write never are."""

from engine.runtime.cluster.ownwrites import OwnWrites
from engine.runtime.cluster.store import ADDED, DELETED, MODIFIED, Event


def _obj(version: str, name: str = "w-a") -> dict[str, object]:
    return {"metadata": {"namespace": "ns", "name": name, "resourceVersion": version}}


def test_an_event_of_an_object_nobody_writes_is_not_held() -> None:
    own = OwnWrites()
    own.begin(_obj("1", "other"))

    assert own.hold(Event(ADDED, _obj("5"), None)) is False


def test_the_writes_own_version_is_ours_and_another_writers_is_not() -> None:
    own = OwnWrites()
    answered = own.begin(_obj("1"))
    mine, theirs = Event(ADDED, _obj("7"), None), Event(MODIFIED, _obj("8"), _obj("7"))

    assert own.hold(mine) and own.hold(theirs)
    answered(_obj("7"))

    assert own.end(_obj("1")) == [(mine, True), (theirs, False)]
    assert own.hold(Event(MODIFIED, _obj("9"), None)) is False  # the write is over


def test_a_failed_write_marks_nothing_and_a_deletion_is_never_ours() -> None:
    own = OwnWrites()
    own.begin(_obj("1"))
    event = Event(MODIFIED, _obj("7"), None)
    assert own.hold(event)
    assert own.end(_obj("1")) == [(event, False)]

    answered = own.begin(_obj("1"))
    gone = Event(DELETED, _obj("8"), None)
    assert own.hold(gone)
    answered(_obj("8"))
    assert own.end(_obj("1")) == [(gone, False)]


def test_events_wait_for_the_last_of_two_writes_of_one_object() -> None:
    own = OwnWrites()
    first, second = own.begin(_obj("1")), own.begin(_obj("1"))
    event = Event(MODIFIED, _obj("7"), None)
    assert own.hold(event)
    first(_obj("7"))

    assert own.end(_obj("1")) == []  # the second write is still under way
    second(_obj("8"))
    assert own.end(_obj("1")) == [(event, True)]
