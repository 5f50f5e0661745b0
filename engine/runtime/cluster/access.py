"""What a user may do, asked of the API server (SelfSubjectAccessReview as that user), and kept a while.

The engine reads a parent's references as a ServiceAccount of the parent's namespace
(``engine.core.decisions.referencing.reader``).  Before it watches anything as that account it
asks the server whether the account may: a SelfSubjectAccessReview sent *as* the account (any
authenticated user may send one) answers for exactly the rights the account holds, through
every authorizer the server runs, with nothing guessed from RBAC objects here.

An answer is kept for ``ttl`` seconds, so a reconcile asks no question its predecessor asked a
moment ago; a right granted or taken away is seen within that long.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from engine.runtime.cluster.kube import Resource
from engine.runtime.cluster.seam import Api

TTL = 10.0
REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
_Question = tuple[str, str, str, str, str]  # user, verb, group, resource, namespace ("" cluster-wide)


class Access:
    """Whether users may do things, as the server says, each answer kept ``ttl`` seconds."""

    def __init__(self, kube: Api, ttl: float = TTL, clock: Callable[[], float] = time.monotonic) -> None:
        self._kube = kube
        self._ttl = ttl
        self._clock = clock
        self._answers: dict[_Question, tuple[bool, float]] = {}
        self._lock = threading.Lock()

    def refused(self, user: str, verbs: Sequence[str], resource: Resource, namespace: str) -> str | None:
        """The first of ``verbs`` that ``user`` may not do on ``resource`` in ``namespace`` ("" for
        every namespace, or a cluster-scoped one); None if it may do them all."""
        for verb in verbs:
            if not self._allows((user, verb, resource.group, resource.plural, namespace)):
                return verb
        return None

    def _allows(self, question: _Question) -> bool:
        now = self._clock()
        with self._lock:
            kept = self._answers.get(question)
        if kept is not None and kept[1] > now:
            return kept[0]
        user, verb, group, plural, namespace = question
        attributes = {"verb": verb, "group": group, "resource": plural}
        if namespace:
            attributes["namespace"] = namespace
        review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"resourceAttributes": attributes},
        }
        answer = self._kube.impersonating(user).request("POST", REVIEWS, review)
        allowed = bool((answer.get("status") or {}).get("allowed"))
        with self._lock:
            self._answers[question] = (allowed, now + self._ttl)
            for stale in [q for q, (_, until) in self._answers.items() if until <= now]:
                del self._answers[stale]
        return allowed
