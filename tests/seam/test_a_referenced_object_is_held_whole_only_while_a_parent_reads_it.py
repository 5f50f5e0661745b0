"""The references' caches hold every object's metadata, and whole only the objects parents read:
fetched once when first read, again only once their version moved, and dropped when no parent
reads them by name or selector; a selector fetches only its matches.  Unrelated objects, however
large, cost their metadata alone, whether the server answers the metadata's watch with metadata
or whole objects."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engine.core.model.objects import Key
from engine.runtime.cluster.informers import InformerSet
from engine.runtime.reconciling.caches.referenced import Referenced
from engine.runtime.reconciling.workers.queue import WorkQueue
from tests._deadlines import eventually
from tests.seam._fake import FakeKube
from tests.unit import _references as refs

LARGE = "x" * 100_000
UNRELATED = 20


@pytest.fixture(params=[True, False], ids=["partial-metadata", "whole-objects"])
def fake(request: pytest.FixtureRequest) -> FakeKube:
    fake = FakeKube()
    fake.partial_metadata = request.param  # the API server, or one that cannot serve metadata alone
    for index in range(UNRELATED):
        fake.add({**refs.config_map(f"other-{index}", team="b"), "data": {"blob": LARGE}})
    fake.add(refs.config_map("shared", team="a"))
    return fake


@pytest.fixture
def referenced(fake: FakeKube) -> Iterator[Referenced]:
    informers = InformerSet(fake)
    yield Referenced(fake, informers, 10.0)
    informers.stop_all()


def _drained(queue: WorkQueue) -> None:
    """Take every key woken so far: a watch started by a parent's first read wakes it once with its
    listing, as a cache it has not listed yet does."""
    while queue.depth:
        key = queue.get()
        assert key is not None
        queue.done(key)


def _gets(fake: FakeKube) -> int:
    return sum(1 for verb, _ in fake.calls if verb == "GET")


def test_a_reference_by_name_holds_whole_only_the_object_it_names(
    fake: FakeKube, referenced: Referenced
) -> None:
    kind, queue = refs.kind(refs.reference()), WorkQueue()
    referenced.watch(kind)
    resolved = referenced.read(kind, refs.parent(configName="shared"), queue, Key("shop", "echo"))
    assert resolved.values["config"]["data"] == {"ECHO": "shared"}
    _drained(queue)
    assert referenced.cached_bytes() < UNRELATED * 1_000, referenced.cached_bytes()
    gets = _gets(fake)
    referenced.read(kind, refs.parent(configName="shared"), queue, Key("shop", "echo"))
    assert _gets(fake) == gets, "a current object is fetched again"

    fake.add({**refs.config_map("shared", team="a"), "data": {"ECHO": "changed"}})
    eventually(lambda: queue.depth > 0, what="the change to wake the parent")
    resolved = referenced.read(kind, refs.parent(configName="shared"), queue, Key("shop", "echo"))
    assert resolved.values["config"]["data"] == {"ECHO": "changed"}
    assert _gets(fake) == gets + 1

    held = referenced.cached_bytes()
    referenced.forget(queue, Key("shop", "echo"))
    assert referenced.cached_bytes() < held, "an object no parent reads is still held"


def test_a_missing_object_is_fetched_once_it_is_created(fake: FakeKube, referenced: Referenced) -> None:
    kind, queue = refs.kind(refs.reference()), WorkQueue()
    referenced.watch(kind)
    resolved = referenced.read(kind, refs.parent(configName="later"), queue, Key("shop", "echo"))
    assert resolved.missing and resolved.values["config"] is None
    fake.add(refs.config_map("later"))
    eventually(lambda: queue.depth > 0, what="the creation to wake the parent")
    resolved = referenced.read(kind, refs.parent(configName="later"), queue, Key("shop", "echo"))
    assert resolved.values["config"]["data"] == {"ECHO": "later"} and not resolved.missing


def test_a_selector_fetches_only_the_objects_it_matches(fake: FakeKube, referenced: Referenced) -> None:
    kind, queue = refs.kind(refs.reference("team", selector={"team": "a"})), WorkQueue()
    fake.add(refs.config_map("also-a", team="a"))
    referenced.watch(kind)
    gets = _gets(fake)
    resolved = referenced.read(kind, refs.parent(), queue, Key("shop", "echo"))
    assert [obj["metadata"]["name"] for obj in resolved.values["team"]] == ["also-a", "shared"]
    assert _gets(fake) == gets + 2
    assert referenced.cached_bytes() < UNRELATED * 1_000, referenced.cached_bytes()

    held = referenced.cached_bytes()
    fake.add(refs.config_map("also-a", team="b"))  # its labels no longer match: no parent reads it
    eventually(lambda: referenced.cached_bytes() < held, what="the unmatched object dropped")
    resolved = referenced.read(kind, refs.parent(), queue, Key("shop", "echo"))
    assert [obj["metadata"]["name"] for obj in resolved.values["team"]] == ["shared"]


def test_a_watch_no_parent_reads_through_is_stopped(fake: FakeKube, referenced: Referenced) -> None:
    """Each namespace's watch, made as its reader, lives as long as a parent reads through it: a
    tenant that makes namespaces and parents and deletes them leaves no watch behind."""
    kind, queue = refs.kind(refs.reference()), WorkQueue()
    before = fake.open_watches.get("configmaps", 0)
    for namespace in ("shop", "other"):
        parent = {**refs.parent(configName="shared"), "metadata": {"name": "echo", "namespace": namespace}}
        referenced.read(kind, parent, queue, Key(namespace, "echo"))
    eventually(lambda: fake.open_watches.get("configmaps", 0) == before + 2, what="two watches")
    referenced.forget(queue, Key("shop", "echo"))
    eventually(lambda: fake.open_watches.get("configmaps", 0) == before + 1, what="one stopped")
    referenced.forget(queue, Key("other", "echo"))
    eventually(lambda: fake.open_watches.get("configmaps", 0) == before, what="both stopped")
