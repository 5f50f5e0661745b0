"""``stencil migrate`` against a fake API server, no cluster: a run stopped after two pages goes on
from the page it recorded, an expired continue token begins the listing again, a conflict and a
deletion count as done, a throttled write is sent again, an object refused for good stops the run
with its name, and the end trims ``status.storedVersions`` through the CRD's status and deletes
the record.  The decisions are ``engine.core.offline.migration``'s, tested on their own."""

from __future__ import annotations

import copy
import urllib.parse
from collections import Counter
from typing import Any

import pytest
from click.testing import CliRunner

from engine.core.model import errors
from engine.core.offline import migration as decided
from engine.runtime.cluster.kube import Kube
from engine.tools import migration
from engine.tools.cli import main

CRD_NAME = "gadgets.tests.stencil.dev"
CRD_PATH = f"{migration.CRDS}/{CRD_NAME}"
LIST = "/apis/tests.stencil.dev/v1/gadgets"
STATE = f"/api/v1/namespaces/ops/configmaps/{decided.state_name(CRD_NAME)}"


class Server:
    """Objects stored at v1alpha1 or v1, a CRD whose storage version is v1, ConfigMaps; what is asked."""

    def __init__(self, count: int, page: int = 3) -> None:
        self.page, self.version = page, 100
        self.objects = {f"g-{i:03}": self._object(f"g-{i:03}") for i in range(count)}
        self.stored = dict.fromkeys(self.objects, "v1alpha1")
        self.crd: dict[str, Any] = {
            "metadata": {"name": CRD_NAME, "uid": "u-1", "resourceVersion": "1"},
            "spec": {
                "group": "tests.stencil.dev",
                "scope": "Namespaced",
                "names": {"plural": "gadgets", "kind": "Gadget"},
                "versions": [
                    {"name": "v1alpha1", "served": True, "storage": False},
                    {"name": "v1", "served": True, "storage": True},
                ],
            },
            "status": {"storedVersions": ["v1alpha1", "v1"]},
        }
        self.configmaps: dict[str, dict[str, Any]] = {}
        self.answers: dict[str, list[int]] = {}  # name -> the statuses its next PUTs are answered
        self.expired: set[str] = set()
        self.asked: Counter[str] = Counter()
        self.written: list[str] = []  # PUTs of objects, in order

    def _object(self, name: str) -> dict[str, Any]:
        self.version += 1
        return {"metadata": {"name": name, "namespace": "ns", "resourceVersion": str(self.version)}}

    def close(self) -> None:
        pass

    def request(self, method: str, path: str, body: Any = None, *, query: Any = None, **_: Any) -> Any:
        self.asked[f"{method} {path}"] += 1
        if path == LIST:
            return self._list(dict(query or {}))
        if path.startswith("/apis/tests.stencil.dev/v1/namespaces/ns/gadgets/"):
            return self._rewrite(path.rsplit("/", 1)[1], body)
        if path == migration.CRDS:
            return {"items": [copy.deepcopy(self.crd)]}
        if path in (CRD_PATH, f"{CRD_PATH}/status"):
            return self._crd(method, body)
        return self._configmap(method, path, body)

    def _list(self, query: dict[str, str]) -> Any:
        token = query.get("continue", "")
        if token in self.expired:
            self.expired.discard(token)  # a new listing's tokens are new
            raise errors.api_error(410, {"message": "The provided continue parameter is too old"}, "list")
        start, limit = int(token or 0), int(query["limit"])
        names = sorted(self.objects)[start : start + min(limit, self.page)]
        end = start + len(names)
        metadata: dict[str, Any] = {"resourceVersion": str(self.version)}
        if end < len(self.objects):
            metadata |= {"continue": str(end), "remainingItemCount": len(self.objects) - end}
        return {"metadata": metadata, "items": [copy.deepcopy(self.objects[n]) for n in names]}

    def _rewrite(self, name: str, body: dict[str, Any]) -> Any:
        self.written.append(name)
        if self.answers.get(name):
            status = self.answers[name].pop(0)
            raise errors.api_error(status, {"message": f"said {status}"}, "PUT", retry_after=0.0)
        if name not in self.objects:
            raise errors.api_error(404, {"message": "not found"}, "PUT")
        if body["metadata"]["resourceVersion"] != self.objects[name]["metadata"]["resourceVersion"]:
            raise errors.api_error(409, {"message": "the object has been modified"}, "PUT")
        if self.stored[name] != "v1":
            self.stored[name], self.objects[name] = "v1", self._object(name)
        return copy.deepcopy(self.objects[name])

    def _crd(self, method: str, body: Any) -> Any:
        if method == "PUT":
            if body["metadata"]["resourceVersion"] != self.crd["metadata"]["resourceVersion"]:
                raise errors.api_error(409, {"message": "modified"}, "PUT")
            self.crd = copy.deepcopy(body)
            self.crd["metadata"]["resourceVersion"] = str(int(body["metadata"]["resourceVersion"]) + 1)
        return copy.deepcopy(self.crd)

    def _configmap(self, method: str, path: str, body: Any) -> Any:
        name = urllib.parse.unquote(path.rsplit("/", 1)[1])
        if method == "POST":
            name = body["metadata"]["name"]
            if name in self.configmaps:
                raise errors.api_error(409, {"message": "exists", "reason": "AlreadyExists"}, "POST")
        found = self.configmaps.get(name)
        if method == "GET" or method == "DELETE":
            if found is None:
                raise errors.api_error(404, {"message": "not found"}, method)
            if method == "DELETE":
                del self.configmaps[name]
            return copy.deepcopy(found)
        if method == "PUT" and (
            found is None or found["metadata"]["resourceVersion"] != body["metadata"]["resourceVersion"]
        ):
            raise errors.api_error(409, {"message": "modified"}, "PUT")
        self.version += 1
        self.configmaps[name] = {
            **body,
            "metadata": {**body["metadata"], "resourceVersion": str(self.version)},
        }
        return copy.deepcopy(self.configmaps[name])


class Killed(Exception):
    pass


def run(server: Server, kill_after: int | None = None) -> tuple[migration.Report, list[str]]:
    kube: Any = server
    target = decided.target(migration.crd(kube, CRD_NAME))
    state = migration.State(kube, "ops", target.name)
    begun = decided.start(target, state.read(), state.unreadable)
    notes, pages = [begun.note], []

    def paged(progress: decided.Progress, total: int | None) -> None:
        pages.append((progress.counts.done, total))
        if kill_after is not None and len(pages) == kill_after:
            raise Killed

    report = migration.run(kube, target, state, begun.progress, 2, notes.append, paged)
    return report, notes


def test_a_run_stopped_after_two_pages_goes_on_from_the_third() -> None:
    server = Server(10)
    with pytest.raises(Killed):
        run(server, kill_after=2)
    recorded = decided.from_data(server.configmaps[decided.state_name(CRD_NAME)]["data"])
    assert recorded is not None and (recorded.token, recorded.counts.done) == ("6", 6)
    assert server.written == [f"g-{i:03}" for i in range(6)]

    report, notes = run(server)

    assert notes == ["resuming after the 6 objects an earlier run rewrote"]
    assert server.written[6:] == [f"g-{i:03}" for i in range(6, 10)]  # none of the first six again
    assert report.handled == 4 and report.progress.counts == decided.Counts(rewritten=10)
    assert report.progress.listed and set(server.stored.values()) == {"v1"}


def test_an_expired_token_lists_again_from_the_first_object_and_says_so() -> None:
    server = Server(7)
    with pytest.raises(Killed):
        run(server, kill_after=1)
    server.expired.add("3")

    report, notes = run(server)

    assert "the continue token has expired (410" in notes[1]
    assert server.written[3:] == sorted(server.objects)  # the first three again, as no-ops
    assert report.progress.counts == decided.Counts(rewritten=4, unchanged=3)
    assert report.progress.restarts == 1


def test_a_listing_whose_token_keeps_expiring_stops_with_why() -> None:
    server = Server(7)
    server.expired = {"3"}
    server._list_once = server._list  # type: ignore[attr-defined]

    def expiring(query: dict[str, str]) -> Any:
        server.expired.add("3")  # every listing's second page: the server compacts faster than a page
        return server._list_once(query)  # type: ignore[attr-defined]

    server._list = expiring  # type: ignore[method-assign]
    with pytest.raises(errors.StencilError, match="expired 4 times in this run"):
        run(server)


def test_a_conflict_and_a_deletion_are_done_and_a_throttled_write_is_sent_again() -> None:
    server = Server(5)
    server.answers = {"g-001": [409], "g-002": [404], "g-003": [429, 503]}

    report, _ = run(server)

    assert report.progress.counts == decided.Counts(rewritten=3, conflicted=1, gone=1)
    assert Counter(server.written)["g-003"] == 3


def test_an_object_refused_for_good_stops_the_run_with_its_name_and_the_pages_before_it_kept() -> None:
    server = Server(6)
    server.answers = {"g-004": [422]}

    with pytest.raises(
        errors.StencilError, match=r"Gadget ns/g-004: 422 said 422: stopped; the next run goes on"
    ):
        run(server)

    recorded = decided.from_data(server.configmaps[decided.state_name(CRD_NAME)]["data"])
    assert recorded is not None and (recorded.token, recorded.counts.done) == ("3", 3)


def test_two_runs_at_once_do_not_both_go_on() -> None:
    server = Server(6)
    target = decided.target(server.crd)
    mine, theirs = (migration.State(server, "ops", CRD_NAME) for _ in range(2))  # type: ignore[arg-type]
    mine.read(), theirs.read()
    mine.write(decided.Progress(CRD_NAME, "u-1", "v1", "3"))
    with pytest.raises(errors.StencilError, match="is another `stencil migrate` of this CRD running"):
        theirs.write(decided.Progress(CRD_NAME, "u-1", "v1", "3"))
    assert target.name == CRD_NAME


def test_the_command_rewrites_trims_through_the_status_and_deletes_its_record(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = Server(7)
    monkeypatch.setattr(Kube, "auto", classmethod(lambda cls, *a, **k: server))
    arguments = ["migrate", CRD_NAME, "--state-namespace", "ops"]

    dry = CliRunner().invoke(main, [*arguments, "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert dry.output.splitlines() == [
        f"{CRD_NAME}: would write back 7 objects at v1; "
        "starting from the first object (no earlier run recorded)",
        "would trim status.storedVersions [v1alpha1, v1] to [v1]",
    ]
    assert not [ask for ask in server.asked if not ask.startswith("GET ")]

    result = CliRunner().invoke(main, arguments)

    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == (
        f"{CRD_NAME}: rewriting its objects at v1; starting from the first object (no earlier run recorded) "
        f"(ConfigMap ops/{decided.state_name(CRD_NAME)})"
    )
    assert lines[1:4] == [
        f"{n}/7: {n} rewritten, 0 already stored so, 0 written since they were listed, 0 gone"
        for n in (3, 6, 7)
    ]
    assert lines[-1] == "status.storedVersions: trimmed v1alpha1; now [v1]"
    assert server.crd["status"]["storedVersions"] == ["v1"] and server.asked[f"PUT {CRD_PATH}/status"] == 1
    assert server.configmaps == {} and server.asked[f"DELETE {STATE}"] == 1

    again = CliRunner().invoke(main, arguments)
    assert again.exit_code == 0 and "7 objects stored at v1: 0 rewritten, 7 already stored so" in again.output
    assert again.output.splitlines()[-1] == "status.storedVersions: already [v1], nothing to trim"


def test_a_trim_read_again_after_a_conflict() -> None:
    server = Server(0)
    target = decided.target(server.crd)
    real = server._crd
    conflicts = [True]

    def once(method: str, body: Any) -> Any:
        if method == "PUT" and conflicts:
            conflicts.pop()
            server.crd["metadata"]["resourceVersion"] = "5"  # written by another meanwhile
            raise errors.api_error(409, {"message": "modified"}, "PUT")
        return real(method, body)

    server._crd = once  # type: ignore[method-assign]
    assert migration.trim(server, target) == ("v1alpha1",)  # type: ignore[arg-type]
    assert server.crd["status"]["storedVersions"] == ["v1"] and server.asked[f"GET {CRD_PATH}"] == 2
