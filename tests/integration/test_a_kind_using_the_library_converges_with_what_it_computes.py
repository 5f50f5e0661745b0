"""A kind whose template uses the library (``fromjson``, ``quantity``, ``digest``, ``shorthash``,
``random_string``) converges on a real control plane, and its child holds what each function
computes: a parsed field, a quantity in the API server's canonical form and its comparison, the
digests of the parent's name, and a random string that stays the same when the spec changes."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import eventually, running_engine
from tests.integration._widgets import widget, write_kind
from tests.unit._kinds import configmap

CONFIGMAP = configmap(
    '  tier: "{{ (spec.settings | fromjson).tier }}"\n'
    '  memory: "{{ spec.memory | quantity }}"\n'
    "  big: \"{{ spec.memory | quantity > '1Gi' | quantity }}\"\n"
    '  digest: "{{ name | digest }}"\n'
    '  hash: "{{ name | shorthash }}"\n'
    '  token: "{{ random_string(12, metadata.uid) }}"\n',
    name="{{ name }}-computed",
)


def test_the_child_holds_what_the_library_computes(
    kube: Kube, namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    configmaps = kube.resource("v1", "ConfigMap")
    templates = write_kind(
        tmp_path / "templates", {"computed.yaml": CONFIGMAP}, "templates: [computed.yaml]\n"
    )

    def data() -> dict[str, str]:
        return (kube.get(configmaps, "lib-computed", namespace) or {}).get("data") or {}

    with running_engine(kube, templates, namespace):
        manifests.apply_all(kube, [widget("lib", settings='{"tier": "web"}', memory="1536Mi")], namespace)
        first = eventually(lambda: data() or None, what="the ConfigMap")
        assert {k: first[k] for k in ("tier", "memory", "big")} == {
            "tier": "web",
            "memory": "1536Mi",
            "big": "true",
        }
        assert first["digest"] == base64.b64encode(hashlib.sha256(b"lib").digest()).decode()
        assert first["hash"] == hashlib.sha256(b"lib").hexdigest()[:8]
        assert re.fullmatch(r"[0-9a-z]{12}", first["token"])

        manifests.apply_all(kube, [widget("lib", settings='{"tier": "api"}', memory="512Mi")], namespace)
        second = eventually(lambda: data() if data().get("tier") == "api" else None, what="the new spec")
        assert (second["memory"], second["big"]) == ("512Mi", "false")
        assert second["token"] == first["token"]
