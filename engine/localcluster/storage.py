"""The plane's storage: a default StorageClass, and a provisioner that gives each of its claims a volume.

On kind or minikube a PersistentVolumeClaim of the default class is bound in a
second or two; on a plane without a provisioner it stays Pending, and so does
every StatefulSet with ``volumeClaimTemplates``.  With controllers, the plane
creates the StorageClass ``standard`` (the default class, binding at once, as on
minikube) and runs a ``Provisioner``, which does what an external provisioner
does, in two threads that list and watch the API server as the plane's admin:

- a claim the PersistentVolume controller has handed to ``PROVISIONER`` (its
  ``volume.kubernetes.io/storage-provisioner`` annotation), Pending and unbound,
  gets a PersistentVolume ``pvc-<claim uid>`` of its size, access modes and
  volume mode, bound to it by ``claimRef``, which the controller then completes;
- a volume of ``PROVISIONER`` whose claim is gone (Released) is deleted, if its
  reclaim policy says Delete: the controller leaves that to the provisioner.

The volumes are hostPath ones naming a directory under the plane's state, with
no node affinity, so the scheduler places a pod using one on any kwok node;
nothing is written there, since kwok's pods run nothing.  (The controller
manager's own ``--enable-hostpath-provisioner`` would need no code here, but it
makes its directories in ``/tmp/hostpath_pv``, shared by every user of the
machine and left behind when the plane stops.)  While the API server is away
the threads try again each second; the plane stops them with itself.
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import threading
import urllib.error
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from engine.localcluster import admin

log = logging.getLogger(__name__)

PROVISIONER = "stencil.dev/local-plane"
CLASS = "standard"
CLASSES = "/apis/storage.k8s.io/v1/storageclasses"
CLAIMS = "/api/v1/persistentvolumeclaims"
VOLUMES = "/api/v1/persistentvolumes"
HANDED_TO = "volume.kubernetes.io/storage-provisioner"  # set on a claim by the PV controller
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"  # set on a volume by its provisioner
RETRY = 1.0  # seconds between attempts while the API server does not answer
STOP_TIMEOUT = 5.0


def storage_class() -> dict[str, Any]:
    """The default StorageClass: its claims bind as soon as they are made, as on minikube."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {
            "name": CLASS,
            "annotations": {"storageclass.kubernetes.io/is-default-class": "true"},
        },
        "provisioner": PROVISIONER,
        "reclaimPolicy": "Delete",
        # Immediate, so that a claim no pod uses yet binds too; with no node
        # affinity on the volumes, every node can then run the pod that uses it.
        "volumeBindingMode": "Immediate",
    }


def wanted(claim: Mapping[str, Any]) -> bool:
    """Whether ``claim`` waits for a volume of ``PROVISIONER``."""
    meta, spec = claim.get("metadata") or {}, claim.get("spec") or {}
    return (
        (meta.get("annotations") or {}).get(HANDED_TO) == PROVISIONER
        and not spec.get("volumeName")
        and (claim.get("status") or {}).get("phase", "Pending") == "Pending"
        and not meta.get("deletionTimestamp")
    )


def released(volume: Mapping[str, Any]) -> bool:
    """Whether ``volume`` is one of ``PROVISIONER``'s whose claim is gone and which is to go too."""
    meta, spec = volume.get("metadata") or {}, volume.get("spec") or {}
    return (
        (meta.get("annotations") or {}).get(PROVISIONED_BY) == PROVISIONER
        and (volume.get("status") or {}).get("phase") == "Released"
        and spec.get("persistentVolumeReclaimPolicy") == "Delete"
        and not meta.get("deletionTimestamp")
    )


def volume_for(claim: Mapping[str, Any], reclaim_policy: str, directory: Path) -> dict[str, Any]:
    """The PersistentVolume for ``claim``, bound to it, named as external provisioners name theirs."""
    meta, spec = claim["metadata"], claim["spec"]
    name = f"pvc-{meta['uid']}"
    volume_spec: dict[str, Any] = {
        "capacity": {"storage": spec["resources"]["requests"]["storage"]},
        "accessModes": spec["accessModes"],
        "volumeMode": spec.get("volumeMode") or "Filesystem",
        "storageClassName": spec["storageClassName"],
        "persistentVolumeReclaimPolicy": reclaim_policy,
        "claimRef": {
            "apiVersion": "v1",
            "kind": "PersistentVolumeClaim",
            "namespace": meta["namespace"],
            "name": meta["name"],
            "uid": meta["uid"],
        },
        "hostPath": {"path": str(directory / name)},
    }
    if spec.get("volumeAttributesClassName"):  # the controller binds only a volume of the same
        volume_spec["volumeAttributesClassName"] = spec["volumeAttributesClassName"]
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "annotations": {PROVISIONED_BY: PROVISIONER}},
        "spec": volume_spec,
    }


class Provisioner:
    """Volumes for the claims of ``PROVISIONER``'s classes, and their deletion once released."""

    def __init__(self, api: admin.Admin, directory: Path) -> None:
        self._api = api
        self._directory = directory
        self._stopped = threading.Event()
        self._threads = [
            threading.Thread(target=self._follow, args=(CLAIMS, self._provide), name="stencil-claims"),
            threading.Thread(target=self._follow, args=(VOLUMES, self._reclaim), name="stencil-volumes"),
        ]
        for thread in self._threads:
            # A daemon, so that a watch the server never ends cannot keep Python from exiting.
            thread.daemon = True

    def start(self) -> Provisioner:
        for thread in self._threads:
            thread.start()
        return self

    def stop(self) -> None:
        """Ask the threads to stop and wait for them; call it once the API server is gone,
        whose end ends their watches (a watch the server still serves is not cut short)."""
        self._stopped.set()
        for thread in self._threads:
            if thread.ident is not None:
                thread.join(STOP_TIMEOUT)

    def _follow(self, path: str, handle: Callable[[dict[str, Any]], None]) -> None:
        """List ``path`` and handle each object, then each one a watch from there reports; list again
        a second after the watch ends (the server's timeout, an expired version) or fails."""
        while not self._stopped.is_set():
            try:
                listing = self._api.request("GET", path)
                for item in listing.get("items") or []:
                    self._each(handle, item)
                version = listing["metadata"]["resourceVersion"]
                with contextlib.closing(self._api.watch(path, version)) as events:
                    for event in events:
                        if self._stopped.is_set() or event.get("type") == "ERROR":
                            break  # ERROR is 410 Gone, as a rule: the version is too old, list again
                        if event.get("type") in ("ADDED", "MODIFIED"):
                            self._each(handle, event["object"])
            except (OSError, http.client.HTTPException) as exc:  # the server is away or busy
                log.debug("local plane storage: %s: %s", path, exc)
            except Exception:  # a bug: said, but not the end of the plane's storage
                log.warning("local plane storage: %s failed", path, exc_info=True)
            self._stopped.wait(RETRY)

    def _each(self, handle: Callable[[dict[str, Any]], None], obj: dict[str, Any]) -> None:
        """``handle(obj)``, contained: one object it cannot handle must not stop the others."""
        name = "/".join(filter(None, (obj["metadata"].get("namespace"), obj["metadata"]["name"])))
        try:
            handle(obj)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code >= 500 or exc.code == 429:
                raise  # worth trying again: the list that follows the pause does
            if exc.code not in (404, 409):  # 404: gone meanwhile; 409: made already
                log.warning("local plane storage: %s: %s", name, exc)
        except (OSError, http.client.HTTPException):
            raise
        except Exception:
            log.warning("local plane storage: %s could not be handled", name, exc_info=True)

    def _provide(self, claim: dict[str, Any]) -> None:
        if not wanted(claim):
            return
        sc = self._api.request("GET", f"{CLASSES}/{claim['spec']['storageClassName']}")
        volume = volume_for(claim, sc.get("reclaimPolicy") or "Delete", self._directory)
        self._api.request("POST", VOLUMES, volume)
        log.debug(
            "local plane storage: made %s for %s", volume["metadata"]["name"], claim["metadata"]["name"]
        )

    def _reclaim(self, volume: dict[str, Any]) -> None:
        if released(volume):
            self._api.request("DELETE", f"{VOLUMES}/{volume['metadata']['name']}")


def start(api: admin.Admin, directory: Path) -> Provisioner:
    """Create the default StorageClass and start provisioning its claims' volumes."""
    api.request("POST", CLASSES, storage_class())
    return Provisioner(api, directory).start()
