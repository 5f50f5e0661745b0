"""The command line of each control-plane component, and the fake Node kwok plays the kubelet for.

Pure: what to run, given the binaries, ports, files and state directory that
``engine.localcluster.plane`` chose.  Each flag that departs from a default says why.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engine.localcluster import pki

SERVICE_CIDR = "10.96.0.0/16"  # room for thousands of Services, as benchmarks make
POD_CIDR = "10.244.0.1/16"
KWOK_ANNOTATION = "kwok.x-k8s.io/node"

# An explicit, empty configuration: without one kwok reads ~/.kwok/kwok.yaml, and its built-in
# stages (node and pod "fast" lifecycles) are what the plane wants.
KWOK_CONFIG = "apiVersion: config.kwok.x-k8s.io/v1alpha1\nkind: KwokConfiguration\noptions: {}\n"


def etcd(binary: Path, data_dir: Path, client_port: int, peer_port: int) -> list[str]:
    return [
        str(binary),
        "--name=default",
        f"--data-dir={data_dir}",
        f"--listen-client-urls=http://127.0.0.1:{client_port}",
        f"--advertise-client-urls=http://127.0.0.1:{client_port}",
        f"--listen-peer-urls=http://127.0.0.1:{peer_port}",
        f"--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}",
        f"--initial-cluster=default=http://127.0.0.1:{peer_port}",
        "--unsafe-no-fsync=true",  # the data dies with the plane; fsync only costs time
        "--log-level=warn",
    ]


def kube_apiserver(
    binary: Path, etcd_port: int, port: int, cert_dir: Path, files: pki.Files, extra: Sequence[str]
) -> list[str]:
    """The API server's flags; ``extra`` come last, so the caller's value of a repeated flag wins."""
    return [
        str(binary),
        f"--etcd-servers=http://127.0.0.1:{etcd_port}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--secure-port={port}",
        f"--cert-dir={cert_dir}",
        f"--tls-cert-file={files.serving_cert}",
        f"--tls-private-key-file={files.serving_key}",
        f"--client-ca-file={files.ca_cert}",
        f"--service-cluster-ip-range={SERVICE_CIDR}",
        # Node ports for thousands of NodePort Services (the default range holds 2,768).
        "--service-node-port-range=20000-32767",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        f"--service-account-key-file={files.service_account_public_key}",
        f"--service-account-signing-key-file={files.service_account_key}",
        "--authorization-mode=Node,RBAC",
        "--allow-privileged=true",
        # The lease reconciler would publish 127.0.0.1 as the endpoint of the
        # `kubernetes` Service, which Endpoints validation rejects, every 10s.
        "--endpoint-reconciler-type=none",
        "--profiling=false",
        # Without it, SIGTERM waits 60 s for the controllers' open watches
        # to end before the server exits; with it, about a second.
        "--shutdown-watch-termination-grace-period=2s",
        *extra,
    ]


def _common(kubeconfig: Path) -> list[str]:
    return [
        f"--kubeconfig={kubeconfig}",
        "--leader-elect=false",
        "--secure-port=0",
        "--profiling=false",
        # The controllers' own client rate (20 and 50 requests/s by default) must not be what a
        # test or benchmark measures: at 20/s, 100 Deployments take 25 s to become Available.
        "--kube-api-qps=1000",
        "--kube-api-burst=2000",
    ]


def kube_controller_manager(binary: Path, kubeconfig: Path, files: pki.Files) -> list[str]:
    return [
        str(binary),
        *_common(kubeconfig),
        "--controllers=*",
        f"--service-account-private-key-file={files.service_account_key}",
        f"--root-ca-file={files.ca_cert}",
        f"--cluster-signing-cert-file={files.ca_cert}",
        f"--cluster-signing-key-file={files.ca_key}",
    ]


def kube_scheduler(binary: Path, kubeconfig: Path) -> list[str]:
    return [str(binary), *_common(kubeconfig)]


def kwok(binary: Path, kubeconfig: Path, config: Path) -> list[str]:
    return [
        str(binary),
        f"--kubeconfig={kubeconfig}",
        f"--config={config}",
        "--manage-all-nodes=false",
        f"--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}=fake",
        "--manage-nodes-with-label-selector=",
        f"--cidr={POD_CIDR}",
        "--node-ip=127.0.0.1",
        "--node-lease-duration-seconds=40",
    ]


def fake_node(name: str) -> dict[str, Any]:
    """A Node for kwok to manage, untainted and roomy, so ordinary pods land on it."""
    resources = {"cpu": "32", "memory": "256Gi", "pods": "110", "ephemeral-storage": "1Ti"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "annotations": {KWOK_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
            "labels": {
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64",
                "type": "kwok",
            },
        },
        # Nodes are the one kind whose status may be set on create; the
        # scheduler needs allocatable resources before kwok's first update.
        "status": {"allocatable": resources, "capacity": resources},
    }
