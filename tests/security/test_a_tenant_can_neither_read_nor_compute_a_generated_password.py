"""A password a template draws with ``random_string(24, metadata.uid)``, into a Secret child of a
tenant's parent: the tenant, holding Kubernetes' own ``edit`` and ``view`` roles in its namespace
(which read that namespace's Secrets), cannot read the engine's seed key, kept in the engine's
namespace; reading the parent's uid off the child's owner reference and running the library
itself, offline or unkeyed, does not give the password; and the engine, restarted, reads its key
again and renders the same one."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

from engine.core.model import errors
from engine.core.model.language import library, seedkeys
from engine.runtime.cluster import seedsecret
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from tests.integration._engine import eventually, running_engine
from tests.integration._widgets import widget, write_kind

TENANT = "tenant@example.com"
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: "{{ name }}-password"
stringData:
  password: "{{ random_string(24, metadata.uid) }}"
  round: "{{ spec.round }}"
"""


def _tenant(kube: Kube, namespace: str) -> Kube:
    """A client acting as a tenant bound to the built-in ``edit`` and ``view`` in ``namespace``."""
    for role in ("edit", "view"):
        kube.create(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "RoleBinding",
                "metadata": {"name": f"tenant-{role}", "namespace": namespace},
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": role},
                "subjects": [{"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": TENANT}],
            }
        )
    return kube.impersonating(TENANT)


def _refused(attempt: object) -> bool:
    try:
        attempt()  # type: ignore[operator]
    except errors.ApiError as error:
        if error.status == 403:
            return True
        raise
    return False


def test_the_tenant_cannot_read_the_key_nor_compute_the_password(
    kube: Kube, namespace: str, engine_namespace: str, widgets: Resource, tmp_path: Path
) -> None:
    secrets = kube.resource("v1", "Secret")
    templates = write_kind(tmp_path / "templates", {"secret.yaml": SECRET}, "templates: [secret.yaml]\n")
    tenant = _tenant(kube, namespace)

    def password(round_: str) -> str | None:
        data = (tenant.get(secrets, "db-password", namespace) or {}).get("data") or {}
        text = {k: base64.b64decode(v).decode() for k, v in data.items()}
        return text["password"] if text.get("round") == round_ else None

    key = seedsecret.read_or_create(kube, engine_namespace)
    with running_engine(kube, templates, namespace, seed_key=lambda: key):
        manifests.apply_all(kube, [widget("db", round="1")], namespace)
        drawn = eventually(lambda: password("1"), what="the Secret")

    # What the tenant can read: its Secrets, and in their owner references the parent's uid;
    # never the engine's key.
    child = tenant.get(secrets, "db-password", namespace) or {}
    uid = str(child["metadata"]["ownerReferences"][0]["uid"])
    assert uid == (kube.get(widgets, "db", namespace) or {})["metadata"]["uid"]
    assert _refused(lambda: tenant.get(secrets, seedkeys.SECRET_NAME, engine_namespace))
    assert _refused(lambda: tenant.list(secrets, engine_namespace))
    # What the tenant can compute from the uid: the offline key's value, the seed's own hash.
    assert drawn != library.random_string(24, uid)
    unkeyed = hashlib.shake_256(uid.encode()).digest(64)
    assert drawn != "".join(ALPHABET[b % 36] for b in unkeyed if b < 252)[:24]

    restarted = seedsecret.SeedKey(kube, engine_namespace)  # reads the key anew
    with running_engine(kube, templates, namespace, seed_key=restarted):
        manifests.apply_all(kube, [widget("db", round="2")], namespace)
        assert eventually(lambda: password("2"), what="the Secret rendered again") == drawn
