"""A template that waits (``after:``) for one with a ``readyWhen`` waits until the rule holds, not
until kstatus calls the child Current: a running Job is Current, and its dependents still wait."""

from __future__ import annotations

from engine.core.decisions import health
from engine.core.decisions.plans import ordering
from tests.unit._jobs import job, job_template, observed_job
from tests.unit._ordering import NOW, template

MIGRATE = job_template("migrate")
CONFIG = template("config", "migrate")
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "g-config", "namespace": "ns"}}
RENDERED = [(MIGRATE, job()), (CONFIG, CONFIGMAP)]


def test_a_running_job_is_current_but_its_dependents_wait() -> None:
    running = observed_job(succeeded=0)
    assert health.assess(running, now=NOW).status == health.CURRENT
    gate = ordering.gate(RENDERED, [running], NOW)
    assert gate.ready == (job(),)
    (waiting,) = gate.waiting
    assert waiting.template == "config"
    assert str(waiting) == (
        "config waits for migrate "
        "(NotReady: readyWhen 'child.status.succeeded >= 1' does not hold (kind.yaml:9))"
    )


def test_once_the_rule_holds_the_dependents_are_let_through() -> None:
    gate = ordering.gate(RENDERED, [observed_job(succeeded=1)], NOW)
    assert gate.ready == (job(), CONFIGMAP)
    assert gate.waiting == ()


def test_the_rule_decides_even_when_kstatus_would_not_let_through() -> None:
    stuck = job_template("migrate", "child.metadata.name == 'g-migrate'")
    unstarted = {**observed_job(succeeded=0), "status": {}}
    assert health.assess(unstarted, now=NOW).status != health.CURRENT
    gate = ordering.gate([(stuck, job()), (CONFIG, CONFIGMAP)], [unstarted], NOW)
    assert gate.waiting == ()
