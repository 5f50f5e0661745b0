"""The ``stencil`` command line: the outermost layer, wiring options to the engine."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from engine.core import kinds, offline
    from engine.runtime import manager


@click.group()
@click.version_option(package_name="stencil-operator")
def main() -> None:
    """Stencil: a Kubernetes operator engine where a kind is a folder of templates."""


# -- the local control plane ------------------------------------------------------


@main.group()
def cluster() -> None:
    """A real local control plane (etcd, kube-apiserver, and on request controllers and kwok nodes)."""


@cluster.command()
@click.option(
    "--nodes",
    default=0,
    show_default=True,
    type=click.IntRange(min=0),
    help="Simulated nodes (kwok); more than 0 also runs the controller-manager and scheduler.",
)
@click.option(
    "--kubeconfig",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the kubeconfig here once the cluster is ready (removed on stop).",
)
def up(nodes: int, kubeconfig: Path | None) -> None:
    """Run a local cluster in the foreground until Ctrl-C or SIGTERM."""
    import logging

    from engine.localcluster import BuildError, ClusterError, LocalCluster

    logging.basicConfig(level=logging.INFO, format="%(message)s")
    try:
        with LocalCluster(nodes, kubeconfig=kubeconfig) as local:
            click.echo(f"API server {local.server}")
            click.echo(f"export KUBECONFIG={local.kubeconfig}")
            click.echo("running; Ctrl-C to stop")
            local.wait()
    except KeyboardInterrupt:
        click.echo("stopped")
    except (BuildError, ClusterError) as exc:
        raise click.ClickException(str(exc)) from exc


@cluster.command()
def prepare() -> None:
    """Find or build the control-plane binaries (cached), and print their paths."""
    from engine.localcluster import binaries

    try:
        paths = binaries.ensure(binaries.ALL_BINARIES)
    except binaries.BuildError as exc:
        raise click.ClickException(str(exc)) from exc
    for name, path in paths.items():
        click.echo(f"{name}\t{path}")


# -- the engine -----------------------------------------------------------------


@main.command()
@click.option(
    "--templates",
    "templates_dir",
    default="templates",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of kind folders.",
)
@click.option(
    "--kubeconfig",
    default=None,
    help="Kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or the in-cluster service account).",
)
@click.option(
    "--namespace",
    "namespaces",
    multiple=True,
    help="Watch this namespace (repeat for several; default: all).",
)
@click.option("--workers", default=4, show_default=True, help="Concurrent reconciles per kind.")
@click.option("--resync", default=600.0, show_default=True, help="Seconds between resyncs from the cache.")
@click.option("--log-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--log-level", default="INFO", show_default=True)
@click.option(
    "--metrics-bind-address",
    default=":8080",
    show_default=True,
    help="host:port for /metrics, /healthz and /readyz; '0' turns them off.",
)
@click.option(
    "--kind-configmaps-namespace",
    default=None,
    help="Also serve kinds from ConfigMaps labelled stencil.dev/kind-bundle=true here.",
)
@click.option("--leader-elect", is_flag=True, help="Reconcile only while holding a Lease.")
@click.option("--leader-elect-namespace", default=None, help="The Lease's namespace (default: the pod's).")
@click.option("--leader-elect-lease-name", default="stencil-leader", show_default=True)
@click.option("--leader-elect-identity", default=None, help="This replica's name (default: host + random).")
@click.option("--leader-elect-lease-duration", default=15.0, show_default=True)
@click.option("--leader-elect-renew-deadline", default=10.0, show_default=True)
@click.option("--leader-elect-retry-period", default=2.0, show_default=True)
def run(
    templates_dir: Path,
    kubeconfig: str | None,
    namespaces: tuple[str, ...],
    workers: int,
    resync: float,
    log_format: str,
    log_level: str,
    metrics_bind_address: str,
    kind_configmaps_namespace: str | None,
    leader_elect: bool,
    leader_elect_namespace: str | None,
    leader_elect_lease_name: str,
    leader_elect_identity: str | None,
    leader_elect_lease_duration: float,
    leader_elect_renew_deadline: float,
    leader_elect_retry_period: float,
) -> None:
    """Run the engine against a cluster until SIGINT or SIGTERM."""
    import logging
    import os

    from engine.runtime import leader, manager, observability
    from engine.runtime.kube import Kube

    observability.configure_logging("json" if log_format == "json" else "text", log_level)
    log = logging.getLogger("stencil")
    metrics, health = observability.Metrics(), observability.Health()
    server = None
    if metrics_bind_address not in ("0", ""):
        host, _, port = metrics_bind_address.rpartition(":")
        server = observability.serve(metrics, health, host or "0.0.0.0", int(port))
    stopping = _stop_event()
    kube = Kube.auto(kubeconfig)
    options = manager.Options(
        workers=workers,
        resync=resync,
        namespaces=namespaces,
        metrics=metrics,
        bundle_namespace=kind_configmaps_namespace,
        run_workers=not leader_elect,
    )
    engine = manager.Engine(kube, templates_dir, options)
    engine.start()
    elector = None
    if leader_elect:
        lease_namespace = leader_elect_namespace or os.environ.get("POD_NAMESPACE") or "default"

        def started() -> None:
            metrics.leading(leader_elect_lease_name, True)
            log.info("became the leader; reconciling")
            engine.run_workers()

        def stopped() -> None:
            # Like controller-runtime: a replica that lost its Lease stops writing and exits,
            # to start again as a clean standby.
            metrics.leading(leader_elect_lease_name, False)
            if not stopping.is_set():
                log.error("lost the leader Lease; exiting")
                os._exit(1)  # another replica may already lead: no reconcile may finish now
            engine.stop()  # SIGTERM: reconciles under way finish before the Lease is released

        # A standby reports 0 from the start, so that a dashboard can tell a standby
        # from a replica that does not take part in the election at all.
        metrics.leading(leader_elect_lease_name, False)
        elector = leader.LeaderElector(
            kube,
            namespace=lease_namespace,
            name=leader_elect_lease_name,
            identity=leader_elect_identity or leader.default_identity(),
            lease_duration=leader_elect_lease_duration,
            renew_deadline=leader_elect_renew_deadline,
            retry_period=leader_elect_retry_period,
            on_started_leading=started,
            on_stopped_leading=stopped,
        )
        elector.start()
    while not stopping.wait(0.2):
        if not health.ready and engine.synced():
            health.mark_ready()  # a standby is ready too: its caches are warm
    health.mark_unready("shutting down")
    if elector is not None:
        elector.stop(release=True)
    engine.stop()
    if server is not None:
        server.shutdown()


# Options several commands share: where the kind folders and their CRDs are.
_templates_option = click.option(
    "--templates",
    "templates_dir",
    default="templates",
    show_default=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder of kind folders.",
)
_crds_option = click.option(
    "--crds",
    "crds_dir",
    default="crds",
    show_default=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="Folder of the kinds' CRDs.",
)


@main.command()
@_templates_option
@_crds_option
@click.option("--name", default="stencil", show_default=True, help="Name of the ClusterRole and Role.")
@click.option("--namespace", default="stencil-system", show_default=True, help="The engine's namespace.")
def rbac(templates_dir: Path, crds_dir: Path, name: str, namespace: str) -> None:
    """Print the least-privilege RBAC the engine needs for these kinds."""
    from engine.core import kinds, offline
    from engine.core import rbac as rbac_rules

    loaded, broken = kinds.load_kinds(templates_dir)
    for kind_name, b in broken.items():
        raise click.ClickException(f"kind {kind_name} is broken: {b.error}")
    defaults = offline.OfflineCrds.read(crds_dir).defaulted
    roles = rbac_rules.documents(
        loaded.values(),
        rbac_rules.offline_resources(crds_dir),
        name=name,
        defaults=defaults,
        namespace=namespace,
        lease_name="stencil-leader",
    )
    click.echo(rbac_rules.dump(roles), nl=False)


def _stop_event() -> threading.Event:
    """An event set by SIGINT or SIGTERM."""
    import signal

    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    return stop


@main.command()
@_templates_option
@_crds_option
@click.option("--nodes", default=1, show_default=True, help="Simulated nodes (kwok).")
@click.option("--namespace", default="default", show_default=True, help="Where the examples are applied.")
@click.option(
    "--kubeconfig",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also write the local cluster's kubeconfig here.",
)
def dev(templates_dir: Path, crds_dir: Path, nodes: int, namespace: str, kubeconfig: Path | None) -> None:
    """Local cluster + CRDs + engine + every kind's examples, with their conditions shown live."""
    import logging
    import time

    from engine.core import kinds
    from engine.localcluster.plane import LocalCluster
    from engine.runtime import manager
    from engine.runtime.kube import Kube
    from engine.tools import manifests

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    click.echo(f"starting a local control plane with {nodes} simulated node(s)...")
    with LocalCluster(nodes, kubeconfig=kubeconfig) as cluster:
        click.echo(f"API server {cluster.server}; kubeconfig {cluster.kubeconfig}")
        kube = Kube.from_kubeconfig(str(cluster.kubeconfig))
        click.echo(f"installed CRDs: {', '.join(manifests.install_crds(kube, crds_dir)) or 'none'}")
        engine = manager.Engine(kube, templates_dir, manager.Options(workers=2, resync=60.0))
        engine.start()
        loaded, broken = kinds.load_kinds(templates_dir)
        for name, b in broken.items():
            click.echo(f"kind {name} is broken: {b.error}", err=True)
        for kind in loaded.values():
            applied = manifests.apply_all(kube, manifests.read(kind.examples), namespace)
            click.echo(f"applied {len(applied)} example(s) of {kind.kind}")
        click.echo("watching conditions (Ctrl-C to stop)")
        stop = _stop_event()
        shown: dict[str, str] = {}
        while not stop.wait(0.5):
            for line_key, line in _condition_lines(engine):
                if shown.get(line_key) != line:
                    shown[line_key] = line
                    click.echo(f"{time.strftime('%H:%M:%S')} {line}")
        click.echo("stopping")
        engine.stop()


def _condition_lines(engine: manager.Engine) -> list[tuple[str, str]]:
    lines = []
    for ctrl in list(engine.controllers.values()):
        for parent in ctrl.parents.list():
            meta = parent["metadata"]
            who = f"{parent['kind']} {meta.get('namespace', '')}/{meta['name']}".replace(" /", " ")
            for cond in parent.get("status", {}).get("conditions", []):
                text = f"{cond['status']:<7} {cond.get('reason', '')}"
                if cond.get("message"):
                    text += f": {cond['message']}"
                lines.append((f"{who} {cond['type']}", f"{who} {cond['type']:<22} {text}"))
    return lines


# -- offline rendering --------------------------------------------------------------


def _cr_files_options(command: Callable[..., None]) -> Callable[..., None]:
    """KIND_DIR, -f files of CRs, -n namespace and --crds: what render and diff both read."""
    options = [
        click.argument("kind_dir", type=click.Path(exists=True, file_okay=False, path_type=Path)),
        click.option(
            "-f",
            "--filename",
            "files",
            multiple=True,
            required=True,
            type=click.Path(exists=True, dir_okay=False, path_type=Path),
            help="A file of CRs (repeatable); documents of other kinds are skipped.",
        ),
        click.option(
            "-n",
            "--namespace",
            default="default",
            show_default=True,
            help="Namespace of a namespaced CR that names none, as kubectl would use.",
        ),
        click.option(
            "--crds",
            "crds_dir",
            default=None,
            type=click.Path(exists=True, file_okay=False, path_type=Path),
            help="CRDs giving custom kinds their scope, defaults and validation "
            "[default: crds/ beside the templates folder, if there is one].",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _read_crs(
    kind_dir: Path, files: tuple[Path, ...], namespace: str, crds_dir: Path | None
) -> tuple[kinds.Kind, offline.OfflineCrds, list[tuple[str, dict[str, Any]]]]:
    """The kind, the CRDs, and each CR of the kind in the files as the API server would keep it
    (validated, defaulted, namespaced), with where it was read (``file:line``)."""
    from engine.core import documents, errors, kinds, offline

    kind = kinds.load_kind(kind_dir)
    crds = offline.OfflineCrds.read(crds_dir or kind_dir.resolve().parent.parent / "crds")
    parents = []
    for file in files:
        for document in documents.Document.read_all(file, errors.StencilError):
            parent = crds.admit(document, kind, namespace)
            if parent is not None:
                parents.append((f"{file}:{document.line}", parent))
    if not parents:
        raise errors.StencilError(f"no {kind.kind} ({kind.api_version}) in {', '.join(map(str, files))}")
    return kind, crds, parents


@main.command("render")
@_cr_files_options
def render(kind_dir: Path, files: tuple[Path, ...], namespace: str, crds_dir: Path | None) -> None:
    """Print the children KIND_DIR renders for the CRs in the -f files, exactly as they would be applied.

    No cluster is contacted.  Each CR is first validated against its CRD and
    given the CRD's defaults, as the API server would; a CR without a uid gets
    the all-zero one.  Bad input exits non-zero with "file:line: field: message".
    """
    import yaml

    from engine.core import errors, rendering

    try:
        kind, crds, parents = _read_crs(kind_dir, files, namespace, crds_dir)
        children: list[dict[str, Any]] = []
        for where, parent in parents:
            try:
                children.extend(rendering.render(kind, parent, [], is_namespaced=crds.is_namespaced))
            except errors.StencilError as error:
                name = parent["metadata"]["name"]
                raise click.ClickException(
                    f"{error}\n  (rendering {kind.kind} {name} from {where})"
                ) from error
    except errors.StencilError as error:
        raise click.ClickException(str(error)) from error
    stream = yaml.dump_all(children, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)
    click.echo(stream, nl=False)


@main.command("diff")
@_cr_files_options
@click.option("--kubeconfig", default=None, help="Kubeconfig (default: $KUBECONFIG or ~/.kube/config).")
def diff(
    kind_dir: Path, files: tuple[Path, ...], namespace: str, crds_dir: Path | None, kubeconfig: str | None
) -> None:
    """Show what the engine would change in the cluster for the CRs in the -f files.

    Read-only: each child the engine would apply is applied as a server-side dry
    run and compared with the live object; children it would prune are shown as
    deletions.  Exits 0 when nothing would change, 1 when something would, 2 on
    bad input, like kubectl diff.
    """
    from engine.core import errors
    from engine.runtime.kube import Kube
    from engine.tools import diffing

    try:
        kind, _, parents = _read_crs(kind_dir, files, namespace, crds_dir)
        kube = Kube.from_kubeconfig(kubeconfig)
        changes = [change for _, parent in parents for change in diffing.preview(kube, kind, parent)]
    except errors.StencilError as error:
        click.echo(f"error: {error}", err=True)
        raise SystemExit(2) from error
    for change in changes:
        fields = f" ({', '.join(change.fields)})" if change.fields else ""
        click.echo(f"{change.action:<9} {change.child}{fields}")
        if change.diff:
            click.echo(change.diff, nl=False)
    raise SystemExit(1 if any(c.action != "unchanged" for c in changes) else 0)


if __name__ == "__main__":
    main()
