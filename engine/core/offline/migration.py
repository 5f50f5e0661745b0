"""A CRD's stored objects rewritten at its storage version (``stencil migrate``): the decisions, pure.

The API server stores each object of a CRD at the version that was the storage version when the
object was last written, and lists in the CRD's ``status.storedVersions`` every version objects
may still be stored at.  A version can leave the CRD's ``spec.versions`` only once it is not
among those.  ``stencil migrate`` lists every object and writes each back unchanged (a PUT of the
object as read, its resourceVersion included): the server re-encodes it at the storage version,
and leaves etcd alone where the bytes are those already stored.  Then ``status.storedVersions``
can be trimmed to the storage version alone.

This module decides, from what was read: the CRD's ``Target`` (``target``, ``find``); what each
answer to a rewrite means (``judge``); what a run records after each page, in a ConfigMap
(``Progress``, ``as_data``, ``from_data``, ``state_name``); whether a run resumes from what an
earlier one recorded or starts over (``start``, ``expired``, ``over_again``); the total a
progress bar shows (``total``); and the CRD's status with its stored versions trimmed
(``trimmed``).  ``engine.tools.migration`` does the requests around it.
"""

from __future__ import annotations

import copy
import enum
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from engine.core.model import errors
from engine.core.model.objects import Obj, View

PAGE = 500  # objects listed at a time; each page is rewritten, then the progress is recorded
MAX_ATTEMPTS = 5  # a rewrite the server turns away for the moment (429, 5xx, no answer), in all
MAX_RESTARTS = 3  # listings one run begins again, their token having expired, before it gives up
STATE_PREFIX = "stencil-migrate-"
MAX_NAME = 253  # a ConfigMap's name is a DNS subdomain
# What an API server says of a continue token whose snapshot it no longer holds (410 Gone).
TOO_OLD = "continue parameter is too old"


@dataclass(frozen=True)
class Target:
    """The CRD whose objects are rewritten, as it was read before the listing began."""

    name: str
    uid: str
    group: str
    kind: str
    plural: str
    namespaced: bool
    storage: str  # the version objects are stored at from now on
    version: str  # the version listed and written: the storage version if it is served
    stored: tuple[str, ...]  # status.storedVersions

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}"


def target(crd: View) -> Target:
    """The ``Target`` a CRD describes; a ``StencilError`` if it names no storage version."""
    spec, meta = crd.get("spec") or {}, crd.get("metadata") or {}
    versions = [v for v in spec.get("versions") or () if isinstance(v, Mapping)]
    storage = next((str(v.get("name")) for v in versions if v.get("storage")), None)
    served = [str(v.get("name")) for v in versions if v.get("served")]
    if storage is None or not served:
        what = "no storage version" if storage is None else "no version served"
        raise errors.StencilError(f"CRD {meta.get('name')}: {what}")
    names = spec.get("names") or {}
    return Target(
        name=str(meta.get("name")),
        uid=str(meta.get("uid", "")),
        group=str(spec.get("group", "")),
        kind=str(names.get("kind", "")),
        plural=str(names.get("plural", "")),
        namespaced=spec.get("scope") != "Cluster",
        storage=storage,
        version=storage if storage in served else served[0],
        stored=tuple(str(v) for v in (crd.get("status") or {}).get("storedVersions") or ()),
    )


def find(crds: Iterable[View], group: str, kind: str) -> View | None:
    """The CRD among ``crds`` that serves ``kind`` in ``group``, if one does."""
    for crd in crds:
        spec = crd.get("spec") or {}
        if spec.get("group") == group and (spec.get("names") or {}).get("kind") == kind:
            return crd
    return None


class Outcome(enum.Enum):
    """What the answer to one object's rewrite means."""

    REWRITTEN = "rewritten"  # the server wrote it again, at the storage version
    UNCHANGED = "unchanged"  # already stored as it would be written: etcd was left alone
    CONFLICTED = "conflicted"  # 409: written by someone else since it was listed, so at the storage version
    GONE = "gone"  # 404: deleted since it was listed
    RETRY = "retry"  # the server turned it away for the moment: ask again
    FAILED = "failed"  # an answer that rewriting it again will not change: stop


DONE = (Outcome.REWRITTEN, Outcome.UNCHANGED, Outcome.CONFLICTED, Outcome.GONE)


def judge(status: int, sent: str = "", answered: str = "", attempt: int = 1) -> Outcome:
    """The outcome of a rewrite answered ``status`` (0: no answer), from the resourceVersion
    ``sent`` and the one ``answered`` (a 2xx), on its ``attempt``-th try."""
    if 200 <= status < 300:
        return Outcome.UNCHANGED if answered and answered == sent else Outcome.REWRITTEN
    if status == 409:
        return Outcome.CONFLICTED
    if status == 404:
        return Outcome.GONE
    if status in (0, 429) or status >= 500:
        return Outcome.RETRY if attempt < MAX_ATTEMPTS else Outcome.FAILED
    return Outcome.FAILED


@dataclass(frozen=True)
class Counts:
    """The objects done, by what their rewrite found."""

    rewritten: int = 0
    unchanged: int = 0
    conflicted: int = 0
    gone: int = 0

    @property
    def done(self) -> int:
        return self.rewritten + self.unchanged + self.conflicted + self.gone

    def plus(self, outcomes: Iterable[Outcome]) -> Counts:
        found = {field: getattr(self, field) for field in COUNTED}
        for outcome in outcomes:
            if outcome not in DONE:
                raise ValueError(f"{outcome} is not an object done")
            found[outcome.value] += 1
        return Counts(**found)


COUNTED = ("rewritten", "unchanged", "conflicted", "gone")


@dataclass(frozen=True)
class Progress:
    """What a run has done, recorded after each page: the next page's continue token, the counts,
    and the CRD (its uid and storage version) they hold for."""

    crd: str
    uid: str
    storage: str
    token: str = ""  # where the listing goes on; "" before the first page, and after the last
    counts: Counts = Counts()
    listed: bool = False  # every page done: what is left is the trim
    restarts: int = 0  # listings begun again, their token having expired


def state_name(crd: str) -> str:
    """The name of the ConfigMap holding a migration's ``Progress``: named for the CRD, its name
    cut and a digest of it added where it would be too long."""
    name = STATE_PREFIX + crd
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(crd.encode()).hexdigest()[:10]
    return f"{name[: MAX_NAME - len(digest) - 1].rstrip('.-')}-{digest}"


def as_data(progress: Progress) -> dict[str, str]:
    """The ConfigMap ``data`` that records ``progress``, a key a field, as ``kubectl get`` shows it."""
    data = {
        "crd": progress.crd,
        "uid": progress.uid,
        "storageVersion": progress.storage,
        "continue": progress.token,
        "listed": "true" if progress.listed else "false",
        "restarts": str(progress.restarts),
    }
    data.update({field: str(getattr(progress.counts, field)) for field in COUNTED})
    return data


def from_data(data: Mapping[str, object]) -> Progress | None:
    """The ``Progress`` a ConfigMap's ``data`` records, or None where it records none whole."""
    try:
        counts = Counts(**{field: int(str(data[field])) for field in COUNTED})
        restarts = int(str(data.get("restarts", "0")))
        fields = {key: data[key] for key in ("crd", "uid", "storageVersion", "continue", "listed")}
    except (KeyError, ValueError):
        return None
    if not all(isinstance(value, str) for value in fields.values()) or fields["listed"] not in (
        "true",
        "false",
    ):
        return None
    if min(restarts, *(getattr(counts, field) for field in COUNTED)) < 0:
        return None
    return Progress(
        crd=str(fields["crd"]),
        uid=str(fields["uid"]),
        storage=str(fields["storageVersion"]),
        token=str(fields["continue"]),
        counts=counts,
        listed=fields["listed"] == "true",
        restarts=restarts,
    )


@dataclass(frozen=True)
class Start:
    """Where a run begins, and why, in words for the person who runs it."""

    progress: Progress
    resumed: bool
    note: str


def start(crd: Target, saved: Progress | None, unreadable: bool = False) -> Start:
    """Resume from what an earlier run ``saved`` if it holds for this CRD as it is now (the same
    uid, the same storage version); else start from the first page.  ``unreadable``: a state
    ConfigMap was there, but recorded no ``Progress`` whole."""
    fresh = Progress(crd=crd.name, uid=crd.uid, storage=crd.storage)
    if saved is None:
        why = "its state records no progress whole" if unreadable else "no earlier run recorded"
        return Start(fresh, False, f"starting from the first object ({why})")
    if saved.crd != crd.name or saved.uid != crd.uid:
        return Start(
            fresh, False, "starting from the first object: the earlier run was of another CRD of this name"
        )
    if saved.storage != crd.storage:
        return Start(
            fresh,
            False,
            f"starting from the first object: the earlier run rewrote at {saved.storage}, "
            f"the storage version is now {crd.storage}",
        )
    if saved.listed:
        return Start(saved, True, f"resuming: the earlier run rewrote all {saved.counts.done} objects")
    return Start(saved, True, f"resuming after the {saved.counts.done} objects an earlier run rewrote")


def expired(status: int, message: str) -> bool:
    """Whether a listing answered so was refused for its continue token having expired."""
    return status == 410 or TOO_OLD in message


def over_again(progress: Progress, restarted: int = 0) -> Progress:
    """The listing begun again from the first page, its token having expired: rewriting the
    objects already done again is a no-op, so they are counted again as they come.  A
    ``StencilError`` once this run has begun it again ``MAX_RESTARTS`` times (``restarted``):
    the server forgets a listing faster than its pages are rewritten."""
    if restarted >= MAX_RESTARTS:
        raise errors.StencilError(
            f"the listing's continue token expired {restarted + 1} times in this run: the server "
            "forgets a listing before its pages are rewritten (raise --workers, or its etcd "
            "compaction interval)"
        )
    return replace(progress, token="", counts=Counts(), listed=False, restarts=progress.restarts + 1)


def after_page(progress: Progress, outcomes: Iterable[Outcome], token: str) -> Progress:
    """The progress once a page is done, every object of it in ``outcomes``; ``token`` is the
    page's continue token ("" on the last page)."""
    return replace(progress, token=token, counts=progress.counts.plus(outcomes), listed=not token)


def total(progress: Progress, remaining: int | None) -> int | None:
    """How many objects the listing holds in all, after a page whose ``metadata.remainingItemCount``
    was ``remaining``; None where the server did not say (it may not, for some listings)."""
    if remaining is not None:
        return progress.counts.done + remaining
    return progress.counts.done if not progress.token else None


def trimmed(crd: View, migrated: Target) -> tuple[Obj | None, tuple[str, ...]]:
    """The CRD's body for its ``/status`` with ``status.storedVersions`` the storage version alone,
    and the versions that takes off; ``(None, ())`` where there is nothing to take off.

    A ``StencilError`` where the CRD is not the one whose objects were rewritten: deleted and
    made again, or given another storage version since (objects may then be stored at the one
    migrated to: a trim would be a lie)."""
    now = target(crd)
    if now.uid != migrated.uid:
        raise errors.StencilError(f"CRD {migrated.name} was deleted and made again: run again")
    if now.storage != migrated.storage:
        raise errors.StencilError(
            f"CRD {migrated.name}: its storage version became {now.storage} during the run: run again"
        )
    removed = tuple(v for v in now.stored if v != now.storage)
    if not removed and now.stored == (now.storage,):
        return None, ()
    body = copy.deepcopy(dict(crd))
    body.setdefault("status", {})["storedVersions"] = [now.storage]
    return body, removed
