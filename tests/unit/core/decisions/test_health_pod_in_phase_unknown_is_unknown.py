"""A Pod whose node stopped reporting is Unknown, as kstatus's pollers report it: neither ready nor failed."""

from engine.core.decisions.health import Health, assess


def pod(phase: str) -> dict[str, object]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-0"}, "status": {"phase": phase}}


def test_pod_in_phase_unknown_is_unknown() -> None:
    verdict = assess(pod("Unknown"))

    assert verdict == Health("Unknown", "phase Unknown: its node is not reporting")
    assert not verdict.current


def test_pod_in_a_phase_kstatus_does_not_know_is_unknown() -> None:
    assert assess(pod("Hibernating")) == Health("Unknown", "unrecognised phase 'Hibernating'")
