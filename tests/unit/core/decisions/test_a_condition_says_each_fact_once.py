"""A condition says each fact once: a child's condition passed through with ``from:`` (renamed),
and a reason and message by status, so the test that decides the status is not written again
in its reason and its message.  Loaded from kind.yaml as an author writes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.core.decisions import conditions
from engine.core.decisions.plans import ordering
from engine.core.decisions.rules import Read, failures
from engine.core.decisions.status import Outcome, derive_status
from engine.core.model.errors import KindError
from engine.core.model.kinds import Kind, load_kind

NOW = "2026-03-01T12:00:00Z"
PARENT = {
    "apiVersion": "example.dev/v1",
    "kind": "Site",
    "metadata": {"name": "s", "namespace": "ns", "generation": 1},
    "spec": {"cidr": "10.0.0.0/24"},
}
DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ name }}-web"}
spec: {replicas: 1}
"""
CONFIGMAP = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ name }}-config"}
data: {cidr: "{{ spec.cidr }}"}
"""
CONDITIONS = """\
status:
  conditions:
    - type: WebAvailable
      from: {child: web, condition: Available}
    - type: Progressing
      from: {child: web}
      reason: {False: Stuck}
    - type: ConfigPublished
      status: children.config.data.cidr == spec.cidr
      reason: {True: Published, False: NotPublished}
      message:
        True: "'ConfigMap ' ~ children.config.metadata.name ~ ' holds ' ~ spec.cidr"
        False: "'ConfigMap ' ~ name ~ '-config does not hold the spec yet'"
"""


def site(tmp_path: Path, conditions_text: str = CONDITIONS) -> Kind:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "web.yaml").write_text(DEPLOYMENT)
    (folder / "config.yaml").write_text(CONFIGMAP)
    (folder / "kind.yaml").write_text(
        "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\n"
        "parent: {apiVersion: example.dev/v1, kind: Site}\n"
        "templates: [web.yaml, config.yaml]\n" + conditions_text
    )
    return load_kind(folder)


def deployment(*own: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "s-web", "namespace": "ns", "uid": "u-1", "generation": 1},
        "spec": {"replicas": 1},
        "status": {"observedGeneration": 1, "conditions": list(own)},
    }


def configmap(cidr: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "s-config", "namespace": "ns", "uid": "u-2"},
        "data": {"cidr": cidr},
    }


def derived(kind: Kind, *observed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    by_id = {t.id: t for t in kind.templates}
    origins = ordering.origins([(by_id["web"], deployment()), (by_id["config"], configmap(""))])
    status = derive_status(kind, PARENT, observed, Outcome(origins=tuple(origins)), NOW)
    return {c["type"]: {k: c[k] for k in ("status", "reason", "message")} for c in status["conditions"]}


AVAILABLE = {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable", "message": "up"}
STUCK = {"type": "Progressing", "status": "False", "reason": "ProgressDeadlineExceeded", "message": "late"}


def test_from_passes_a_childs_condition_through_under_its_own_name(tmp_path: Path) -> None:
    kind = site(tmp_path)
    said = derived(kind, deployment(AVAILABLE, STUCK), configmap("10.0.0.0/24"))

    assert said["WebAvailable"] == {"status": "True", "reason": "MinimumReplicasAvailable", "message": "up"}
    # Its own reason for False wins over the child's; the message is still the child's.
    assert said["Progressing"] == {"status": "False", "reason": "Stuck", "message": "late"}


def test_from_a_child_without_the_condition_is_unknown_and_says_which(tmp_path: Path) -> None:
    said = derived(site(tmp_path), deployment(), configmap("10.0.0.0/24"))

    assert said["WebAvailable"]["status"] == conditions.UNKNOWN
    assert said["WebAvailable"]["message"] == "web: no Available condition yet"


def test_a_reason_and_a_message_by_status_follow_the_status_rule(tmp_path: Path) -> None:
    kind = site(tmp_path)

    assert derived(kind, deployment(), configmap("10.0.0.0/24"))["ConfigPublished"] == {
        "status": "True",
        "reason": "Published",
        "message": "ConfigMap s-config holds 10.0.0.0/24",
    }
    assert derived(kind, deployment(), configmap("10.9.9.0/24"))["ConfigPublished"] == {
        "status": "False",
        "reason": "NotPublished",
        "message": "ConfigMap s-config does not hold the spec yet",
    }


def test_a_status_the_maps_do_not_name_gets_the_rule_for_every_status(tmp_path: Path) -> None:
    # Progressing gives a reason for False only: when True it is the child's.
    progressing = {**STUCK, "status": "True", "reason": "NewReplicaSetAvailable"}
    assert (
        derived(site(tmp_path), deployment(progressing))["Progressing"]["reason"] == "NewReplicaSetAvailable"
    )


def test_a_status_no_rule_names_gets_the_engines_words(tmp_path: Path) -> None:
    text = (
        "status:\n  conditions:\n    - type: Published\n      status: children.config.data.cidr\n"
        "      reason: {True: Published}\n"
    )
    said = derived(site(tmp_path, text), deployment())["Published"]

    assert said["status"] == conditions.UNKNOWN
    assert said["reason"] == "Unknown"
    assert said["message"].endswith("cannot be told yet: the data it reads is missing")


def test_a_from_of_no_template_is_an_error_at_its_line(tmp_path: Path) -> None:
    text = (
        "status:\n  conditions:\n    - type: WebAvailable\n      from: {child: wbe, condition: Available}\n"
    )
    with pytest.raises(KindError) as raised:
        site(tmp_path, text)

    assert (raised.value.line, raised.value.field) == (8, "status.conditions[0].from")
    assert "no template has the id 'wbe'" in str(raised.value)


def test_a_reason_by_status_that_is_no_reason_word_is_an_error_at_its_line(tmp_path: Path) -> None:
    text = "status:\n  conditions:\n    - type: Up\n      status: 'true'\n      reason: {True: not a word}\n"
    with pytest.raises(KindError) as raised:
        site(tmp_path, text)

    assert raised.value.line == 9


def test_a_condition_with_both_from_and_status_is_refused(tmp_path: Path) -> None:
    text = "status:\n  conditions:\n    - type: Up\n      status: 'true'\n      from: {child: web}\n"
    with pytest.raises(KindError):
        site(tmp_path, text)


def test_a_message_by_status_that_fails_is_an_error_offline_at_its_line(tmp_path: Path) -> None:
    text = (
        "status:\n  conditions:\n    - type: Up\n      status: children.config is not none\n"
        "      message:\n        True: children.config.data.cidr | fromjson\n"
    )
    kind = site(tmp_path, text)
    by_id = {t.id: t for t in kind.templates}
    read = Read(
        observed=[configmap("10.0.0.0/24")], origins=ordering.origins([(by_id["config"], configmap(""))])
    )

    [found] = failures(kind, PARENT, {}, read)

    assert (found.line, found.field) == (10, "status.conditions[0].message.true")


def test_a_status_given_twice_in_a_map_is_an_error_at_its_line(tmp_path: Path) -> None:
    text = (
        "status:\n  conditions:\n    - type: Up\n      status: 'true'\n      reason: {True: A, 'True': B}\n"
    )
    with pytest.raises(KindError, match="status True is given twice") as raised:
        site(tmp_path, text)

    assert raised.value.line == 9
