"""``stencil migrate``'s decisions, without a cluster: the CRD read into a target, each answer to
a rewrite judged, the progress recorded and read back, a run resumed or begun again, the total a
bar shows, and the trim of ``status.storedVersions``."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.model import errors
from engine.core.offline import migration
from engine.core.offline.migration import Counts, Outcome, Progress


def crd(storage: str = "v1", stored: tuple[str, ...] = ("v1alpha1", "v1"), **extra: Any) -> dict[str, Any]:
    served = extra.pop("served", {"v1alpha1": True, "v1": True})
    return {
        "metadata": {
            "name": "gadgets.tests.stencil.dev",
            "uid": extra.pop("uid", "u-1"),
            "resourceVersion": "7",
        },
        "spec": {
            "group": "tests.stencil.dev",
            "scope": extra.pop("scope", "Namespaced"),
            "names": {"plural": "gadgets", "kind": "Gadget"},
            "versions": [{"name": v, "served": s, "storage": v == storage} for v, s in served.items()],
        },
        "status": {"storedVersions": list(stored)},
    }


TARGET = migration.target(crd())


def test_a_crd_is_read_into_its_storage_version_and_the_version_written_at() -> None:
    expected = migration.Target(
        name="gadgets.tests.stencil.dev",
        uid="u-1",
        group="tests.stencil.dev",
        kind="Gadget",
        plural="gadgets",
        namespaced=True,
        storage="v1",
        version="v1",
        stored=("v1alpha1", "v1"),
    )
    assert expected == TARGET
    assert TARGET.api_version == "tests.stencil.dev/v1"
    unserved = migration.target(crd(served={"v1alpha1": True, "v1": False}, scope="Cluster"))
    assert (unserved.storage, unserved.version, unserved.namespaced) == ("v1", "v1alpha1", False)
    with pytest.raises(errors.StencilError, match=r"gadgets\.tests\.stencil\.dev: no storage version"):
        migration.target(crd(storage="v9"))
    with pytest.raises(errors.StencilError, match="no version served"):
        migration.target(crd(served={"v1alpha1": False, "v1": False}))


def test_the_crd_of_a_kind_is_found_by_group_and_kind_in_any_version() -> None:
    other = {"spec": {"group": "other.dev", "names": {"kind": "Gadget"}}}
    assert migration.find([other, crd()], "tests.stencil.dev", "Gadget") == crd()
    assert migration.find([other, crd()], "tests.stencil.dev", "Widget") is None


@pytest.mark.parametrize(
    ("status", "sent", "answered", "attempt", "outcome"),
    [
        (200, "5", "9", 1, Outcome.REWRITTEN),
        (200, "5", "5", 1, Outcome.UNCHANGED),  # stored so already: etcd left alone
        (409, "", "", 1, Outcome.CONFLICTED),
        (404, "", "", 1, Outcome.GONE),
        (429, "", "", 1, Outcome.RETRY),
        (503, "", "", 4, Outcome.RETRY),
        (0, "", "", 2, Outcome.RETRY),  # no answer
        (500, "", "", migration.MAX_ATTEMPTS, Outcome.FAILED),
        (422, "", "", 1, Outcome.FAILED),
        (403, "", "", 1, Outcome.FAILED),
        (410, "", "", 1, Outcome.FAILED),
    ],
)
def test_each_answer_to_a_rewrite_is_judged(
    status: int, sent: str, answered: str, attempt: int, outcome: Outcome
) -> None:
    assert migration.judge(status, sent, answered, attempt) is outcome


def test_counts_add_up_what_a_page_did_and_refuse_what_is_not_done() -> None:
    page = [Outcome.REWRITTEN, Outcome.REWRITTEN, Outcome.UNCHANGED, Outcome.CONFLICTED, Outcome.GONE]
    counts = Counts(rewritten=1).plus(page)
    assert counts == Counts(rewritten=3, unchanged=1, conflicted=1, gone=1) and counts.done == 6
    with pytest.raises(ValueError, match="RETRY is not an object done"):
        counts.plus([Outcome.RETRY])


def test_a_page_moves_the_token_and_the_last_page_marks_the_listing_done() -> None:
    begun = migration.start(TARGET, None).progress
    first = migration.after_page(begun, [Outcome.REWRITTEN] * 500, "t-1")
    assert (first.token, first.counts.done, first.listed) == ("t-1", 500, False)
    last = migration.after_page(first, [Outcome.UNCHANGED] * 20, "")
    assert (last.token, last.counts, last.listed) == ("", Counts(rewritten=500, unchanged=20), True)


def test_the_progress_recorded_reads_back_as_it_was() -> None:
    progress = Progress("gadgets.tests.stencil.dev", "u-1", "v1", "t-1", Counts(3, 2, 1, 0), False, 1)
    data = migration.as_data(progress)
    assert data == {
        "crd": "gadgets.tests.stencil.dev",
        "uid": "u-1",
        "storageVersion": "v1",
        "continue": "t-1",
        "listed": "false",
        "restarts": "1",
        "rewritten": "3",
        "unchanged": "2",
        "conflicted": "1",
        "gone": "0",
    }
    assert migration.from_data(data) == progress


@pytest.mark.parametrize(
    "broken",
    [{"rewritten": "many"}, {"gone": "-1"}, {"listed": "maybe"}, {"uid": 7}, {"continue": None}],
)
def test_a_record_not_whole_reads_as_none(broken: dict[str, Any]) -> None:
    data: dict[str, Any] = {**migration.as_data(Progress("c", "u", "v1")), **broken}
    assert migration.from_data(data) is None
    assert (
        migration.from_data(
            {k: v for k, v in migration.as_data(Progress("c", "u", "v1")).items() if k != "uid"}
        )
        is None
    )


def test_a_state_is_named_for_its_crd_within_a_configmaps_name() -> None:
    assert migration.state_name("gadgets.tests.stencil.dev") == "stencil-migrate-gadgets.tests.stencil.dev"
    long_a, long_b = "a" * 63 + "." + "b" * 200, "a" * 63 + "." + "b" * 199 + "c"
    assert len(migration.state_name(long_a)) == migration.MAX_NAME
    assert migration.state_name(long_a) != migration.state_name(long_b)


def test_a_run_resumes_only_what_an_earlier_run_of_this_crd_at_this_storage_version_recorded() -> None:
    saved = Progress(TARGET.name, TARGET.uid, "v1", "t-3", Counts(rewritten=1500))
    resumed = migration.start(TARGET, saved)
    assert resumed.resumed and resumed.progress == saved
    assert resumed.note == "resuming after the 1500 objects an earlier run rewrote"
    fresh = Progress(TARGET.name, TARGET.uid, "v1")
    for other, why in [
        (None, "no earlier run recorded"),
        (Progress(TARGET.name, "u-0", "v1", "t-3", Counts(9)), "another CRD of this name"),
        (
            Progress(TARGET.name, TARGET.uid, "v1alpha1", "t-3"),
            "rewrote at v1alpha1, the storage version is now v1",
        ),
    ]:
        began = migration.start(TARGET, other)
        assert not began.resumed and began.progress == fresh and why in began.note
    assert "records no progress whole" in migration.start(TARGET, None, unreadable=True).note
    done = migration.start(TARGET, Progress(TARGET.name, TARGET.uid, "v1", "", Counts(9), listed=True))
    assert done.resumed and done.progress.listed and "all 9 objects" in done.note


def test_an_expired_token_begins_the_listing_again_from_the_first_object() -> None:
    assert migration.expired(410, "Expired")
    assert migration.expired(400, "The provided continue parameter is too old to display a consistent list")
    assert not migration.expired(400, "continue key is not valid")
    saved = Progress(TARGET.name, TARGET.uid, "v1", "t-3", Counts(rewritten=1500), restarts=1)
    assert migration.over_again(saved) == Progress(TARGET.name, TARGET.uid, "v1", restarts=2)
    assert migration.over_again(saved, migration.MAX_RESTARTS - 1).restarts == 2
    with pytest.raises(errors.StencilError, match="expired 4 times in this run"):
        migration.over_again(saved, migration.MAX_RESTARTS)


def test_the_total_is_what_is_done_and_what_the_server_says_remains() -> None:
    page = Progress("c", "u", "v1", "t-2", Counts(rewritten=1000))
    assert migration.total(page, 9000) == 10_000
    assert migration.total(page, None) is None
    assert migration.total(Progress("c", "u", "v1", "", Counts(rewritten=1000), listed=True), None) == 1000


def test_the_trim_leaves_the_storage_version_alone_through_the_status() -> None:
    body, removed = migration.trimmed(crd(), TARGET)
    assert removed == ("v1alpha1",)
    assert body is not None and body["status"]["storedVersions"] == ["v1"]
    assert body["metadata"]["resourceVersion"] == "7" and body["spec"] == crd()["spec"]
    assert migration.trimmed(crd(stored=("v1",)), TARGET) == (None, ())
    body, removed = migration.trimmed(crd(stored=()), TARGET)  # none said: the storage version is
    assert removed == () and body is not None and body["status"]["storedVersions"] == ["v1"]


def test_no_trim_of_a_crd_other_than_the_one_migrated() -> None:
    with pytest.raises(errors.StencilError, match="deleted and made again"):
        migration.trimmed(crd(uid="u-2"), TARGET)
    with pytest.raises(errors.StencilError, match="storage version became v1alpha1 during the run"):
        migration.trimmed(crd(storage="v1alpha1"), TARGET)
