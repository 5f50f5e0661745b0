"""Trying a kind on a local control plane: the plane itself, a live session, the examples tested.

``cluster`` starts a real local control plane (etcd, kube-apiserver and, on request, the
controllers that run Pods); ``dev`` puts the CRDs, the engine and every kind's examples on one
and shows the parents live, redrawn as the kind folders change; ``test`` runs each example on a
plane of its own and checks what the engine made of it (``engine.tools.kindtest``).
"""

from engine.tools.cli.trying import cluster, dev, test

__all__ = ["cluster", "dev", "test"]
