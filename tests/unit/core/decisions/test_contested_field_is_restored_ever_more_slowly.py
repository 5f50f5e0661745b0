"""A field another writer keeps changing back is restored three times in a row, then ever more
slowly (10 s, doubling to 5 minutes); a new rendered value or a long peace starts the count
again, and the other writer is named from the server's managedFields."""

from engine.core.decisions.plans import contention

PARENT = "uid-1"
CHILD = ("apps/v1", "Deployment", "x1", "coredns")
REVISION = ("metadata", "annotations", "deployment.kubernetes.io/revision")


def restore(state: contention.Contention, now: float, value: str = "1") -> list[contention.Contest]:
    return state.restored(PARENT, CHILD, {REVISION: value}, now)


def test_three_restores_in_a_row_make_the_field_contested() -> None:
    state = contention.Contention()
    assert restore(state, 0.0) == []
    assert restore(state, 0.05) == []
    (contest,) = restore(state, 0.1)
    assert (contest.field, contest.restores, contest.retry_in) == (
        'metadata.annotations["deployment.kubernetes.io/revision"]',
        3,
        contention.FIRST_BACKOFF,
    )


def test_a_contested_field_holds_its_update_until_the_backoff_ends() -> None:
    state = contention.Contention()
    for now in (0.0, 0.05, 0.1):
        restore(state, now)
    (held,) = state.held(PARENT, CHILD, [REVISION], 5.0)
    assert held.retry_in == contention.FIRST_BACKOFF - 4.9
    assert not held.announced
    assert state.held(PARENT, CHILD, [REVISION], 10.2) == []


def test_the_backoff_doubles_up_to_its_bound() -> None:
    state = contention.Contention()
    now, waits = 0.0, []
    for _ in range(12):
        contests = restore(state, now)
        waits.append(contests[0].retry_in if contests else 0.0)
        now += waits[-1] + 0.01
    assert waits == [0.0, 0.0, 10.0, 20.0, 40.0, 80.0, 160.0, 300.0, 300.0, 300.0, 300.0, 300.0]
    # Sixty seconds of a fight cost at most a handful of restores.
    assert sum(1 for t in _times(waits) if t <= 60.0) <= 6


def _times(waits: list[float]) -> list[float]:
    times, now = [], 0.0
    for wait in waits:
        times.append(now)
        now += wait + 0.01
    return times


def test_an_update_that_also_restores_an_uncontested_field_goes_ahead() -> None:
    state = contention.Contention()
    for now in (0.0, 0.05, 0.1):
        restore(state, now)
    assert state.held(PARENT, CHILD, [REVISION, ("spec", "replicas")], 1.0) == []


def test_a_new_rendered_value_or_a_long_peace_starts_the_count_again() -> None:
    state = contention.Contention()
    restore(state, 0.0)
    restore(state, 1.0)
    assert restore(state, 2.0, value="2") == []  # the template changed: not a fight
    restore(state, 3.0, value="2")
    assert restore(state, 3.0 + contention.WINDOW + 1, value="2") == []


def test_an_announced_hold_keeps_the_other_writers_name() -> None:
    state = contention.Contention()
    for now in (0.0, 0.05, 0.1):
        restore(state, now)
    (held,) = state.held(PARENT, CHILD, [REVISION], 1.0)
    named = state.announce(PARENT, held, ["kube-controller-manager"])
    assert named.announced and named.managers == ("kube-controller-manager",)
    (again,) = state.held(PARENT, CHILD, [REVISION], 2.0)
    assert again.announced and again.managers == ("kube-controller-manager",)
    assert "changed back by kube-controller-manager (restored 3 times in a row)" in again.message


def test_the_other_writer_is_found_in_managed_fields_but_never_stencil() -> None:
    fields = {"f:metadata": {"f:annotations": {"f:deployment.kubernetes.io/revision": {}}}}
    obj = {
        "metadata": {
            "managedFields": [
                {"manager": "stencil", "operation": "Apply", "fieldsV1": {"f:spec": {}}},
                {"manager": "kube-controller-manager", "operation": "Update", "fieldsV1": fields},
                {"manager": "kubectl-edit", "operation": "Update", "fieldsV1": {"f:spec": {}}},
            ]
        }
    }
    assert contention.other_managers(obj, REVISION, "stencil") == ["kube-controller-manager"]
    assert contention.other_managers(obj, ("spec", "replicas"), "stencil") == []


def test_differences_include_metadata_and_list_items() -> None:
    observed = {"metadata": {"annotations": {"a": "2"}}, "spec": {"ports": [{"port": 80}], "extra": 1}}
    desired = {"metadata": {"annotations": {"a": "1"}}, "spec": {"ports": [{"port": 8080}]}}
    assert list(contention.differences(observed, desired)) == [
        ("metadata", "annotations", "a"),
        ("spec", "ports", 0, "port"),
    ]
