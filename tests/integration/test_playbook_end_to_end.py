"""Playbook (seed 004) end to end: the CRD refuses a "yellow" abstract as the seed's webhook did,
and a valid Playbook runs its Job, reaches progress 100 and is deleted, its Job with it.

Playbooks are cluster-scoped and their Jobs run in ``default``, so names are made unique per
test instead of per namespace, and the engine watches every namespace.
"""

from __future__ import annotations

import contextlib
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.core import errors
from engine.runtime import manager
from engine.runtime.kube import Kube, Obj, Resource
from engine.tools import manifests
from tests.integration._engine import ROOT, conditions, eventually

FOLDER = ROOT / "templates" / "playbook"
SAMPLE = "playbook-sample"
JOB_NAMESPACE = "default"  # where kind.yaml places the Jobs
TEST_LABEL = uuid.uuid4().hex[:8]  # marks this run's Playbooks, for the clean-up


@pytest.fixture
def playbooks(kube: Kube, crds_installed: list[str]) -> Iterator[Resource]:
    res = kube.resource("ops.netease.com/v1", "Playbook")
    yield res
    # Cluster-scoped: no test namespace takes them away.
    for playbook in kube.list(res, label_selector=f"test={TEST_LABEL}")[0]:
        kube.delete(res, playbook["metadata"]["name"])


def playbook(**spec: Any) -> dict[str, Any]:
    """The sample Playbook under a name of its own, with ``spec`` fields overridden."""
    doc = next(
        d
        for d in manifests.read(manifests.yaml_files(FOLDER / "examples"))
        if d["metadata"]["name"] == SAMPLE
    )
    name = f"{SAMPLE}-{uuid.uuid4().hex[:8]}"
    return {
        **doc,
        "metadata": {"name": name, "labels": {"test": TEST_LABEL}},
        "spec": {**doc["spec"], **spec},
    }


def refusal(call: Callable[[], Any]) -> errors.Invalid:
    with pytest.raises(errors.Invalid) as refused:
        call()
    return refused.value


def test_an_abstract_containing_yellow_is_refused_on_create(kube: Kube, playbooks: Resource) -> None:
    yellow = playbook(abstract="a yellow book")

    refused = refusal(lambda: kube.request("POST", playbooks.path(), yellow))

    assert refused.status == 422
    causes = refused.body["details"]["causes"]
    assert [c["field"] for c in causes] == ["spec.abstract"]
    assert 'must not contain the word "yellow"' in causes[0]["message"]
    assert kube.get(playbooks, yellow["metadata"]["name"]) is None


def test_an_abstract_containing_yellow_is_refused_on_update(kube: Kube, playbooks: Resource) -> None:
    created = kube.request("POST", playbooks.path(), playbook())
    name = created["metadata"]["name"]

    refused = refusal(
        lambda: kube.request(
            "PATCH",
            playbooks.path(None, name),
            {"spec": {"abstract": "now a yellow book"}},
            content_type="application/merge-patch+json",
        )
    )

    assert refused.status == 422
    assert [c["field"] for c in refused.body["details"]["causes"]] == ["spec.abstract"]
    kept = kube.get(playbooks, name)
    assert kept is not None
    assert kept["spec"] == created["spec"]
    assert kept["metadata"]["generation"] == created["metadata"]["generation"]


class Recording:
    """Every event of one object from a resourceVersion on, watched in the background until it
    is deleted: a Playbook writes progress 100 and is gone a moment later, too fast to poll."""

    def __init__(self, kube: Kube, res: Resource, name: str, namespace: str | None, version: str) -> None:
        self.events: list[tuple[str, Obj]] = []
        self.error: BaseException | None = None
        self._stops: list[Callable[[], None]] = []
        self._thread = threading.Thread(
            target=self._follow, args=(kube, res, name, namespace, version), daemon=True
        )
        self._thread.start()

    def _follow(self, kube: Kube, res: Resource, name: str, namespace: str | None, version: str) -> None:
        try:
            for type_, obj in kube.watch(
                res, version, namespace, timeout_seconds=300, on_open=self._stops.append
            ):
                if type_ == "BOOKMARK" or obj["metadata"]["name"] != name:
                    continue
                self.events.append((type_, obj))
                if type_ == "DELETED":
                    return
        except BaseException as exc:  # re-raised in the test's thread by deleted()
            self.error = exc

    def deleted(self) -> bool:
        if self.error is not None:
            raise self.error
        return bool(self.events) and self.events[-1][0] == "DELETED"

    def stop(self) -> None:
        if self._thread.is_alive():
            for stop in self._stops:
                # A watch that has just ended by itself has released its connection already.
                with contextlib.suppress(RuntimeError):
                    stop()
        self._thread.join(10)


def test_a_playbook_runs_its_job_reaches_progress_100_and_is_deleted_with_its_job(
    kube: Kube, playbooks: Resource, tmp_path: Path
) -> None:
    jobs = kube.resource("batch/v1", "Job")
    pods = kube.resource("v1", "Pod")
    # This kind alone, so that an engine watching every namespace reconciles nothing of other tests.
    shutil.copytree(FOLDER, tmp_path / "templates" / FOLDER.name)

    created = kube.request("POST", playbooks.path(), playbook())
    name, uid = created["metadata"]["name"], created["metadata"]["uid"]
    job_name = f"{name}-{created['metadata']['generation']}"
    jobs_version = kube.list(jobs, JOB_NAMESPACE)[1]
    playbook_events = Recording(kube, playbooks, name, None, created["metadata"]["resourceVersion"])
    job_events = Recording(kube, jobs, job_name, JOB_NAMESPACE, jobs_version)

    engine = manager.Engine(
        kube, tmp_path / "templates", manager.Options(workers=2, reload_interval=0.3)
    )
    engine.start()
    try:
        eventually(
            playbook_events.deleted, timeout=120, what="the Playbook to be deleted once its Job completed"
        )
        # The garbage collector notices a deleted owner of a newly installed CRD's kind only after
        # its next discovery sync (every 30 s), so this can take that long.
        eventually(job_events.deleted, timeout=120, what="the Job to be garbage-collected")
    finally:
        engine.stop()
        playbook_events.stop()
        job_events.stop()

    # The Playbook: progress only went up, reached 100 with its Job complete, then it was deleted.
    written = [obj for type_, obj in playbook_events.events if type_ == "MODIFIED" and "status" in obj]
    progress = [obj["status"].get("progress") for obj in written]
    assert progress == sorted(progress) and set(progress) <= {0, 50, 100}, progress
    last = written[-1]
    assert last["status"]["progress"] == 100
    complete = conditions(last)["JobComplete"]
    assert (complete["status"], complete["reason"]) == ("True", "Complete")
    assert f"Job {JOB_NAMESPACE}/{job_name}: 1 succeeded" in complete["message"]
    assert playbook_events.events[-1][0] == "DELETED"

    # The Job: created for this Playbook, completed, then removed by the garbage collector.
    first_job = job_events.events[0][1]
    owner = first_job["metadata"]["ownerReferences"][0]
    assert (owner["kind"], owner["name"], owner["uid"], owner["controller"]) == ("Playbook", name, uid, True)
    container = first_job["spec"]["template"]["spec"]["containers"][0]
    abstract = next(e["value"] for e in container["env"] if e["name"] == "ABSTRACT")
    assert abstract == created["spec"]["abstract"]
    assert any(conditions(job).get("Complete", {}).get("status") == "True" for _, job in job_events.events)
    assert job_events.events[-1][0] == "DELETED"
    eventually(
        lambda: not kube.list(pods, JOB_NAMESPACE, f"batch.kubernetes.io/job-name={job_name}")[0],
        timeout=60,
        what="the Job's pods to be garbage-collected",
    )
