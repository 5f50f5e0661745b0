"""A kind's versions: ``versions:`` in kind.yaml, read into its conversion and its CRD's versions.

The hub is ``parent.apiVersion``'s version, the one templates and status rules are written
against and the engine reads parents at; ``schema:`` is its API.  Each entry of ``versions:`` is
another version served beside it::

    versions:
      - name: v1alpha1
        deprecated: example.dev/v1alpha1 Site is deprecated; use example.dev/v1
        schema:
          spec:
            subnet: string | required=true
            address: string
        convert:
          - {field: spec.network.cidr, from: spec.subnet}        # renamed and moved
          - {field: spec.replicas, default: 1}                   # only the hub has it
          - up: {spec.host: "spec.address.split(':')[0]", spec.port: "spec.address.split(':')[1] | int"}
            down: {spec.address: "spec.host ~ ':' ~ spec.port"}   # split on the way up, joined down

The hub is stored unless one version says ``storage: true``.  ``crd`` writes every version into
the kind's CRD with the conversion webhook that the engine serves (``/convert``); the webhook's
``caBundle`` is the engine's to write, at run time, for it makes and rotates the certificate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.model import apis
from engine.core.model.crdwriting import simpleschema
from engine.core.model.language.documents import Document, FieldPath
from engine.core.model.versioning.conversion import (
    CONVERTED_ROOTS,
    Computed,
    Conversion,
    Default,
    FieldMapping,
    Move,
    Spoke,
)
from engine.core.model.versioning.conversion import FieldPath as Field

CONVERT_PATH = "/convert"
_CRD_WIDE = ("plural", "shortNames", "scope", "apiApproved")
_NAMES = frozenset({"spec", "status", "metadata"})


@dataclass(frozen=True)
class Webhook:
    """Where the API server reaches the engine's conversion webhook: a Service, or a URL."""

    namespace: str = "stencil"
    name: str = "stencil"
    port: int = 443
    url: str | None = None

    def client_config(self) -> dict[str, Any]:
        if self.url is not None:
            return {"url": self.url.rstrip("/") + CONVERT_PATH}
        service = {"namespace": self.namespace, "name": self.name, "path": CONVERT_PATH, "port": self.port}
        return {"service": service}


def conversion(document: Document, api_version: str) -> Conversion | None:
    """The conversion between the versions of kind.yaml's ``versions:``; None without it."""
    given = document.data.get("versions")
    if not given:
        return None
    if "schema" not in document.data:
        raise document.error(
            "versions: a kind with versions says its hub's API in schema: (a hand-written CRD "
            "serves its own versions and its own conversion)",
            ("versions",),
        )
    group, hub = apis.split_api_version(api_version)
    kind = document.data["parent"]["kind"]
    _check_names(document, hub)
    spokes = {
        entry["name"]: Spoke(
            name=entry["name"],
            schema=_root(simpleschema.served(document, entry["schema"], ("versions", index, "schema"), kind)),
            mappings=tuple(_mappings(document, entry.get("convert", []), ("versions", index, "convert"))),
        )
        for index, entry in enumerate(given)
    }
    hub_schema = _root(simpleschema.served(document, document.data["schema"], ("schema",), kind))
    return Conversion(group=group, hub=hub, hub_schema=hub_schema, spokes=spokes)


def crd(document: Document, api_version: str, kind: str, webhook: Webhook | None = None) -> dict[str, Any]:
    """The kind's CRD: the hub's version (``simpleschema``) and every other of ``versions:``, with
    the conversion webhook when there are several."""
    written = simpleschema.crd(document, api_version, kind)
    given = document.data.get("versions") or []
    if not given:
        return written
    _check_names(document, apis.split_api_version(api_version)[1])
    stored = [entry["name"] for entry in given if entry.get("storage")]
    hub = written["spec"]["versions"][0]
    hub["storage"] = not stored
    for index, entry in enumerate(given):
        version: dict[str, Any] = {
            "name": entry["name"],
            "served": entry.get("served", True),
            "storage": bool(entry.get("storage")),
        }
        deprecated = entry.get("deprecated")
        if deprecated:
            version["deprecated"] = True
            if isinstance(deprecated, str):
                version["deprecationWarning"] = deprecated
        version.update(simpleschema.served(document, entry["schema"], ("versions", index, "schema"), kind))
        written["spec"]["versions"].append(version)
    written["spec"]["conversion"] = {
        "strategy": "Webhook",
        "webhook": {
            "conversionReviewVersions": ["v1"],
            "clientConfig": (webhook or Webhook()).client_config(),
        },
    }
    return written


def _check_names(document: Document, hub: str) -> None:
    seen: dict[str, FieldPath] = {hub: ("parent", "apiVersion")}
    stored = []
    for index, entry in enumerate(document.data["versions"]):
        path: FieldPath = ("versions", index, "name")
        if entry["name"] in seen:
            where = _spelled(seen[entry["name"]])
            raise document.error(f"version {entry['name']} is said twice (first at {where})", path)
        seen[entry["name"]] = path
        for key in _CRD_WIDE:
            if key in entry["schema"]:
                raise document.error(
                    f"{key} is the CRD's, said once in schema:, not a version's",
                    ("versions", index, "schema", key),
                )
        if entry.get("storage"):
            stored.append(index)
    if len(stored) > 1:
        raise document.error(
            "only one version is stored; storage: true is said more than once",
            ("versions", stored[1], "storage"),
        )


def _root(version: dict[str, Any]) -> dict[str, Any]:
    root: dict[str, Any] = version["schema"]["openAPIV3Schema"]
    return root


def _mappings(document: Document, given: list[dict[str, Any]], path: FieldPath) -> list[FieldMapping]:
    mappings: list[FieldMapping] = []
    written: dict[tuple[str, Field], FieldPath] = {}  # (side, field) -> where it is said
    for index, entry in enumerate(given):
        at: FieldPath = (*path, index)
        if "from" in entry:
            mappings.append(Move(hub=_path(entry["field"]), here=_path(entry["from"])))
            sides = [("hub", entry["field"], "field"), ("here", entry["from"], "from")]
        elif "default" in entry:
            mappings.append(Default(hub=_path(entry["field"]), value=entry["default"]))
            sides = [("hub", entry["field"], "field")]
        else:
            up = tuple(
                (_path(f), document.expression(rule, (*at, "up", f), names=_NAMES))
                for f, rule in entry["up"].items()
            )
            down = tuple(
                (_path(f), document.expression(rule, (*at, "down", f), names=_NAMES))
                for f, rule in entry["down"].items()
            )
            mappings.append(Computed(up=up, down=down))
            sides = [("hub", f, "up") for f in entry["up"]] + [("here", f, "down") for f in entry["down"]]
        for side, name, key in sides:
            _claim(document, written, side, _path(name), (*at, key))
    return mappings


def _claim(
    document: Document, written: dict[tuple[str, Field], FieldPath], side: str, field: Field, at: FieldPath
) -> None:
    """Each field of a side is written by one mapping; two that overlap (one is the other's parent
    or the same) would each undo the other."""
    for (other_side, other), where in written.items():
        if other_side == side and (field[: len(other)] == other or other[: len(field)] == field):
            version = "the hub's" if side == "hub" else "this version's"
            said = _spelled(where)
            raise document.error(
                f"{'.'.join(field)} ({version}) is already converted by {said}: a field is said once", at
            )
    written[(side, field)] = at


def _path(text: str) -> Field:
    path = tuple(text.split("."))
    assert path[0] in CONVERTED_ROOTS  # the schema's pattern holds
    return path


def _spelled(path: FieldPath) -> str:
    """A field of kind.yaml as errors name one: ``versions[0].convert[1].field``."""
    return "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path).lstrip(".")
