"""Testing Stencil kinds (and Stencil itself) against a real API server.

The pytest plugin ``engine.testing.plugin`` gives the ``local_cluster``,
``kube`` and ``namespace`` fixtures to a project that enables it
(``pytest_plugins = ["engine.testing.plugin"]`` in its ``conftest.py``).  ``wait_until`` is here because every
test against a live cluster waits for something a controller does
asynchronously, and a fixed ``sleep`` is either flaky or slow.
``write_requests`` reads the API server's own count of write requests, the
one witness of "no writes" that does not depend on the engine's honesty;
``dispatched_requests`` counts every request of one FlowSchema's clients, so a
client given a FlowSchema of its own (``account_flow_schema``; ``service_account_token``
and ``token_kubeconfig`` make it a ServiceAccount) is counted on its own.  The
counter has no verb label; a schema matching only an account's write verbs
(``writes_only``), ahead of one matching the rest, counts its writes apart.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import yaml

if TYPE_CHECKING:
    from engine.runtime.cluster.kube import Kube

T = TypeVar("T")

__all__ = [
    "account_flow_schema",
    "dispatched_requests",
    "service_account_token",
    "token_kubeconfig",
    "wait_until",
    "write_requests",
]

WRITE_VERBS = frozenset({"POST", "PUT", "PATCH", "APPLY", "DELETE", "DELETECOLLECTION"})
# The same writes as a FlowSchema's rules spell them: the request's verb as authorization sees
# it (server-side apply is a ``patch``).  A rule cannot name a non-resource URL's write methods
# (its verbs are validated against these names, and such a request's verb is ``post``), so
# those go to the schema of the rest; the API's writes are all to resources.
FLOW_WRITE_VERBS = ("create", "update", "patch", "delete", "deletecollection")
_SAMPLE = re.compile(r"^apiserver_request_total\{(?P<labels>[^}]*)\} (?P<value>\S+)$")
_LABEL = re.compile(r'(\w+)="([^"]*)"')


def write_requests(kube: Kube, *, refused: bool = True) -> Counter[str]:
    """Write requests the API server has served, by ``"VERB resource[/subresource]"``.

    Read from its ``apiserver_request_total`` metric; server-side apply is verb ``APPLY``.
    With ``refused=False`` the requests answered 403 (not allowed: nothing was written) are
    left out, such as a controller of the cluster retrying in a namespace being deleted.
    """
    counts: Counter[str] = Counter()
    for line in kube.metrics().splitlines():
        match = _SAMPLE.match(line)
        if not match:
            continue
        labels = dict(_LABEL.findall(match["labels"]))
        if labels.get("verb") in WRITE_VERBS and (refused or labels.get("code") != "403"):
            sub = f"/{labels['subresource']}" if labels.get("subresource") else ""
            counts[f"{labels['verb']} {labels.get('resource', '?')}{sub}"] += int(float(match["value"]))
    return counts


def dispatched_requests(kube: Kube, flow_schema: str) -> int:
    """Requests the API server has dispatched for the clients of ``flow_schema`` (priority and
    fairness counts every request, reads and watches included, by the schema that matched it)."""
    prefix = "apiserver_flowcontrol_dispatched_requests_total{"
    return sum(
        int(float(line.rsplit(" ", 1)[1]))
        for line in kube.metrics().splitlines()
        if line.startswith(prefix) and f'flow_schema="{flow_schema}"' in line
    )


def account_flow_schema(
    name: str, account: str, namespace: str, *, writes_only: bool = False, precedence: int = 500
) -> dict[str, Any]:
    """A FlowSchema of the ServiceAccount ``namespace/account`` alone, served at the
    workload-low level: all its requests, or with ``writes_only`` only its writes to any
    resource in any namespace.  Of two schemas matching a request the lower ``precedence`` wins.
    """
    subject = {"kind": "ServiceAccount", "serviceAccount": {"name": account, "namespace": namespace}}
    anything = {"apiGroups": ["*"], "resources": ["*"], "clusterScope": True, "namespaces": ["*"]}
    rule: dict[str, Any] = {
        "subjects": [subject],
        "resourceRules": [{"verbs": list(FLOW_WRITE_VERBS if writes_only else ["*"]), **anything}],
    }
    if not writes_only:
        rule["nonResourceRules"] = [{"verbs": ["*"], "nonResourceURLs": ["*"]}]
    return {
        "apiVersion": "flowcontrol.apiserver.k8s.io/v1",
        "kind": "FlowSchema",
        "metadata": {"name": name},
        "spec": {
            "priorityLevelConfiguration": {"name": "workload-low"},
            "matchingPrecedence": precedence,
            "distinguisherMethod": {"type": "ByUser"},
            "rules": [rule],
        },
    }


def service_account_token(kube: Kube, namespace: str, name: str, seconds: int = 3600) -> str:
    """A token of the ServiceAccount ``namespace/name`` (TokenRequest API)."""
    request = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": seconds},
    }
    granted = kube.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", request)
    return str(granted["status"]["token"])


def token_kubeconfig(admin_kubeconfig: Path, token: str, path: Path) -> Path:
    """A kubeconfig at ``path``: the admin kubeconfig's cluster with a bearer-token user.

    The Python client cannot impersonate from a kubeconfig (it ignores ``as:``), so a
    process that must act as a ServiceAccount is given its token instead.
    """
    config = yaml.load(admin_kubeconfig.read_text(), Loader=yaml.CSafeLoader)
    context = next(c for c in config["contexts"] if c["name"] == config["current-context"])
    context["context"]["user"] = "token"
    config["contexts"] = [context]
    config["users"] = [{"name": "token", "user": {"token": token}}]
    path.write_text(yaml.dump(config, Dumper=yaml.CSafeDumper))
    return path


def wait_until(
    probe: Callable[[], T | None], *, timeout: float = 60.0, interval: float = 0.2, what: str = "condition"
) -> T:
    """Call ``probe`` until it returns something truthy, and return that; or fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: T | None = None
    while True:
        last = probe()
        if last:
            return last
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")
        time.sleep(interval)
