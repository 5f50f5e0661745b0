"""Whether ``kubectl get`` shows a parent's Ready: the printer columns of the CRD that serves it.

A CRD without ``additionalPrinterColumns`` lists its objects by name and age alone, so a person
sees whether a parent is Ready only by reading its YAML; Stencil writes the Ready condition of
every parent, and the CRDs it writes from a kind's ``schema:`` show it, its reason and the age
(``engine.core.model.crdwriting.simpleschema``).  A hand-written CRD that does not is a warning, not an
error: the kind works as well, it is only harder to watch.
"""

from __future__ import annotations

from typing import Any

from engine.core.model import apis

# The column the API server fills with the Ready condition's status (a JSONPath, as kubectl's).
READY = '.status.conditions[?(@.type=="Ready")].status'


def missing_ready(crd: dict[str, Any], api_version: str, kind: str) -> int | None:
    """The index in ``spec.versions`` of the version of ``crd`` serving ``kind`` at ``api_version``
    when it has no Ready column; None when it has one or does not serve that kind."""
    group, version = apis.split_api_version(api_version)
    spec = crd.get("spec") or {}
    if spec.get("group") != group or (spec.get("names") or {}).get("kind") != kind:
        return None
    for index, served in enumerate(spec.get("versions") or ()):
        if isinstance(served, dict) and served.get("name") == version:
            columns = served.get("additionalPrinterColumns") or ()
            shown = {_spelled(c.get("jsonPath")) for c in columns if isinstance(c, dict)}
            return None if _spelled(READY) in shown else index
    return None


def _spelled(path: Any) -> str:
    """A JSONPath as written, without the spaces and the kind of quotes it may be written with."""
    return "".join(str(path).split()).replace("'", '"')


def advice(kind: str, version: str) -> str:
    return (
        f"the CRD's {version} shows no Ready column, so `kubectl get` lists a {kind} by name and age"
        f" alone: add {{name: Ready, type: string, jsonPath: '{READY}'}}, and Reason (the"
        " condition's .reason) and Age (.metadata.creationTimestamp) beside it"
    )
