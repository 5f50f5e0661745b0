"""``stencil shards``: how the parents are shared among the replicas right now.

It reads what the sharded replicas write, and nothing else: the member Leases
(``shard.stencil.dev/member=true``) and each parent kind's ``shard.stencil.dev/owner`` and
``shard.stencil.dev/drain`` labels.  A member is shown live by its Lease's ``renewTime`` and
duration against this machine's clock, which is good enough for a person to read; the
sharder itself never compares clocks (``engine.core.decisions.coordination.sharding``).
"""

from __future__ import annotations

import contextlib
import datetime
from collections import Counter
from pathlib import Path

import click

from engine.tools.cli import options
from engine.tools.cli._common import main


@main.command()
@options.templates()
@options.kubeconfig("Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config).")
@options.namespace("default", "Where the replicas' Leases are.")
def shards(templates_dir: Path, kubeconfig: str | None, namespace: str) -> None:
    """Print each replica's Lease and how many parents of each kind it owns."""
    from engine.core.decisions.coordination import sharding
    from engine.core.model import errors, kinds
    from engine.runtime.cluster.kube import Kube
    from engine.runtime.serving import leader

    with contextlib.closing(Kube.auto(kubeconfig)) as kube:
        leases, _ = kube.list(
            kube.resource(leader.LEASE_API_VERSION, "Lease"), namespace, f"{sharding.LEASE_LABEL}=true"
        )
        now = datetime.datetime.now(datetime.UTC)
        live: dict[str, str] = {}
        for lease in leases:
            record = leader.LeaseRecord.from_spec(lease.get("spec") or {})
            identity = lease["metadata"]["name"].removeprefix(sharding.LEASE_PREFIX)
            if not record.holder:
                live[identity] = "released"
            elif record.renew_time and (now - record.renew_time).total_seconds() < record.duration:
                live[identity] = "live"
            else:
                live[identity] = "expired"
        loaded, _ = kinds.load_kinds(templates_dir)
        owned: Counter[tuple[str, str]] = Counter()  # (owner, kind) -> parents
        draining: Counter[str] = Counter()
        names = []
        for kind in sorted(loaded.values(), key=lambda k: k.name):
            try:
                parents, _ = kube.list(kube.resource(kind.api_version, kind.kind))
            except errors.NotFound:
                continue  # its CRD is not installed
            names.append(kind.name)
            for parent in parents:
                labels = sharding.labels_of(parent)
                owned[(labels.get(sharding.OWNER_LABEL) or "(unassigned)", kind.name)] += 1
                if sharding.DRAIN_LABEL in labels:
                    draining[kind.name] += 1
    owners = sorted(set(live) | {owner for owner, _ in owned})
    widths = [max([len("REPLICA"), *(len(o) for o in owners)]), 9, *(max(len(n), 6) for n in names)]
    header = ["REPLICA", "LEASE", *(n.upper() for n in names)]
    click.echo("  ".join(cell.ljust(width) for cell, width in zip(header, widths, strict=True)))
    for owner in owners:
        row = [owner, live.get(owner, "-"), *(str(owned[(owner, n)]) for n in names)]
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
    if draining:
        click.echo("draining: " + ", ".join(f"{draining[n]} {n}" for n in names if draining[n]))
