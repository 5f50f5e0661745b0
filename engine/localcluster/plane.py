"""A real, throw-away Kubernetes control plane on 127.0.0.1, run from Python.

Stencil's promises are about what a real API server does (server-side apply,
managed fields, garbage collection, CRD validation), so its tests and its
newcomers' demo need one.  ``LocalCluster`` starts etcd and kube-apiserver with
freshly generated certificates, RBAC and service-account keys, on ports picked
at run time, with all state in a temporary directory.  With ``nodes`` it adds
kube-controller-manager, kube-scheduler and kwok, which plays the kubelet for
N fake Nodes, so that a Deployment's pods are scheduled, Running and Ready.
The controllers come with storage (``engine.localcluster.storage``): a default
StorageClass whose claims get a volume at once, so a StatefulSet with
``volumeClaimTemplates`` becomes Ready too.

Teardown is the part that must not fail: every component runs in its own
process group (so Ctrl-C in a terminal reaches only Python, which then stops
them in order) and, on Linux, with ``PR_SET_PDEATHSIG`` so the kernel kills
it if Python dies without cleaning up, even by ``kill -9``.  ``stop()`` kills
the groups, checks that nothing of them is left, and removes the state.
SIGTERM and SIGHUP are turned into ``KeyboardInterrupt`` while a cluster runs
(unless the program installed its own handlers), so the same unwinding that
handles Ctrl-C also handles them; a state directory orphaned by ``kill -9`` is
swept by the next start.

How processes are started and stopped is ``engine.localcluster.processes``; each
component's command line is ``engine.localcluster.components``; the kubeconfig,
and the calls the plane makes to its own API server, ``engine.localcluster.admin``.

The kubeconfig the caller asks for is written only once the API server
answers ``/readyz`` (and, with nodes, every Node is Ready), so a script can
wait for the file to appear; it is removed again on stop.

For fault injection, ``apiserver_args`` adds kube-apiserver flags (tight
in-flight limits, say, to provoke 429s), and ``stop_apiserver()`` and
``start_apiserver()`` take the API server away and bring it back on the same
port, with the same certificates and etcd, while everything else keeps
running: the outage a client must survive without losing what it knew.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from engine.localcluster import admin, binaries, components, pki, processes, storage

log = logging.getLogger(__name__)

STATE_PREFIX = processes.STATE_PREFIX

processes.POLL = 0.1


class ClusterError(RuntimeError):
    """A component of the plane failed; the message names it and quotes its log."""


class StartError(ClusterError):
    """The plane did not come up."""


@dataclass
class _Component:
    name: str
    process: subprocess.Popen[bytes]
    log_path: Path
    log_file: IO[bytes] = field(repr=False)

    def tail(self, lines: int = 30) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])


class LocalCluster:
    """etcd + kube-apiserver, and on request controllers, a scheduler and kwok nodes.

    Use it as a context manager, or call ``start()`` and ``stop()``.  After
    ``start()``, ``kubeconfig`` names an admin kubeconfig (certificate in
    ``system:masters``), ``server`` is the API server's URL and ``etcd`` etcd's client URL
    (plain HTTP, for a test that reads what is stored).

    ``apiserver_args`` are appended to the built-in kube-apiserver flags, so
    for a flag given twice the caller's value wins (the last one counts).

    The kill-on-parent-death signal is tied to the thread that starts the
    cluster: start it from a thread that lives as long as the cluster does
    (the main thread, in practice).
    """

    def __init__(
        self,
        nodes: int = 0,
        *,
        controllers: bool | None = None,
        kubeconfig: str | os.PathLike[str] | None = None,
        startup_timeout: float = 180.0,
        binary_paths: Mapping[str, Path] | None = None,
        apiserver_args: Sequence[str] = (),
    ) -> None:
        if nodes < 0:
            raise ValueError("nodes must be 0 or more")
        if isinstance(apiserver_args, str):  # a str is a Sequence[str] too: one flag per letter
            raise TypeError("apiserver_args is a list of flags, not one string")
        self.nodes = nodes
        # Scheduling pods onto nodes needs the controllers that create them.
        self.controllers = nodes > 0 if controllers is None else controllers or nodes > 0
        self._requested_kubeconfig = Path(kubeconfig) if kubeconfig is not None else None
        self._startup_timeout = startup_timeout
        self._binary_paths = dict(binary_paths or {})
        self._apiserver_args = tuple(apiserver_args)
        self._apiserver_argv: list[str] = []  # as first launched, so a restart runs the same server
        self._apiserver_stopped = False
        # Replaced, never mutated, so check() in another thread sees a whole list.
        self._components: list[_Component] = []
        self._state: Path | None = None
        self._admin: admin.Admin | None = None
        self._provisioner: storage.Provisioner | None = None
        self._written_kubeconfig: bytes | None = None
        self._previous_handlers: dict[int, Any] = {}
        self._started = False
        self.server = ""
        self.etcd = ""
        self.kubeconfig = Path()
        self.timings: dict[str, float] = {}

    # -- public -------------------------------------------------------------

    def __enter__(self) -> LocalCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def state_dir(self) -> Path | None:
        return self._state

    @property
    def pids(self) -> list[int]:
        """Process ids of the running components (each leads its own process group)."""
        return [c.process.pid for c in self._components]

    def needed_binaries(self) -> list[str]:
        names = ["etcd", "kube-apiserver"]
        if self.controllers:
            names += ["kube-controller-manager", "kube-scheduler"]
        if self.nodes:
            names.append("kwok")
        return names

    def start(self) -> LocalCluster:
        if self._started:
            raise RuntimeError("this LocalCluster was already started")
        self._started = True
        self._trap_signals()
        atexit.register(self.stop)
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def check(self) -> None:
        """Raise ``ClusterError``, quoting its log, if a component has exited.

        An API server stopped by ``stop_apiserver()`` is not a component that
        exited: it is meant to be away, and is not reported.
        """
        self._check_alive("running")

    def stop_apiserver(self, *, graceful: bool = True) -> None:
        """Stop kube-apiserver alone; etcd and the other components keep running.

        Clients then see connections refused, as in a control-plane upgrade or
        crash, until ``start_apiserver()``.  ``graceful`` sends SIGTERM, so the
        server drains and ends its responses; ``graceful=False`` sends SIGKILL,
        as the OOM killer would, so open watches break off mid-stream.  Takes
        about a second, a tenth without grace, recorded as
        ``timings["kube-apiserver stop"]``.  Does nothing if the server is
        already stopped.
        """
        self._require_running("stop the API server")
        component = next((c for c in self._components if c.name == "kube-apiserver"), None)
        if component is None:
            return
        step = time.monotonic()
        # Out of the list before it dies, so a check() in another thread never sees it dead.
        self._components = [c for c in self._components if c is not component]
        self._apiserver_stopped = True
        if not graceful:
            processes.signal_group(component.process.pid, signal.SIGKILL)
        survivors = processes.terminate([component.process])
        component.log_file.close()
        self._mark("kube-apiserver stop", step)
        if survivors:
            raise ClusterError(f"processes of kube-apiserver survived SIGKILL: {survivors}")

    def start_apiserver(self, apiserver_args: Sequence[str] | None = None) -> None:
        """Start the API server ``stop_apiserver()`` stopped, and wait for ``/readyz``.

        It is the same server: same flags, port, certificates and etcd, so every
        object, resourceVersion and kubeconfig stays valid.  Its log goes on in
        the same file, after a marker line.  ``apiserver_args``, if given, take
        the place of the caller's flags from now on, so a server can come back
        throttled (``--max-requests-inflight``) as a busy control plane does.
        Takes as long as the first start, about 3 s, recorded as
        ``timings["kube-apiserver restart"]``.  Raises ``StartError`` if it (or
        another component, meanwhile) exits or is not ready in time; teardown
        still stops whatever runs.  Does nothing if the server is running.
        """
        self._require_running("start the API server")
        if not self._apiserver_stopped:
            return
        api = self._admin
        assert api is not None  # set before the server first started, so before it was stopped
        if apiserver_args is not None:
            if isinstance(apiserver_args, str):
                raise TypeError("apiserver_args is a list of flags, not one string")
            built_in = self._apiserver_argv[: len(self._apiserver_argv) - len(self._apiserver_args)]
            self._apiserver_args = tuple(apiserver_args)
            self._apiserver_argv = [*built_in, *self._apiserver_args]
        step = time.monotonic()
        self._launch("kube-apiserver", self._apiserver_argv, again=True)
        self._apiserver_stopped = False
        # The port was ours a moment ago; should something else have bound it
        # since, the server exits at once and _wait quotes its log.
        self._wait("kube-apiserver", lambda: api.ok("/readyz"))
        self._mark("kube-apiserver restart", step)

    def wait(self, poll: float = 0.5) -> None:
        """Block while every component runs; raise ``ClusterError`` when one exits."""
        while True:
            self.check()
            time.sleep(poll)

    def stop(self) -> None:
        """Kill every component's process group, then remove the state; idempotent.

        A second Ctrl-C (or SIGTERM) during these few seconds is held until the
        cleanup is done, then delivered, instead of cutting the cleanup short.
        """
        held: list[int] = []
        with processes.holding_signals(held):
            survivors = self._teardown()
        self._restore_signals()
        for signum in dict.fromkeys(held):
            signal.raise_signal(signum)
        if survivors:
            raise ClusterError(f"processes of the local cluster survived SIGKILL: {survivors}")

    def _require_running(self, doing: str) -> None:
        if self._state is None:
            raise RuntimeError(f"cannot {doing}: the local cluster is not running")

    def _teardown(self) -> list[int]:
        atexit.unregister(self.stop)
        survivors = processes.terminate([c.process for c in reversed(self._components)])
        for component in self._components:
            component.log_file.close()
        if self._provisioner is not None:
            # Once the API server is gone, which ends the watches its threads wait on.
            self._provisioner.stop()
            self._provisioner = None
        self._components = []
        self._apiserver_stopped = False
        if self._requested_kubeconfig is not None and self._written_kubeconfig is not None:
            with contextlib.suppress(OSError):
                # Only our own file: a newer cluster may have taken the path since.
                if self._requested_kubeconfig.read_bytes() == self._written_kubeconfig:
                    self._requested_kubeconfig.unlink()
            self._written_kubeconfig = None
        if self._state is not None:
            shutil.rmtree(self._state, ignore_errors=True)
            self._state = None
        return survivors

    # -- start-up -----------------------------------------------------------

    def _start(self) -> None:
        began = time.monotonic()
        processes.sweep_orphaned_state()
        paths = {
            **binaries.ensure(n for n in self.needed_binaries() if n not in self._binary_paths),
            **self._binary_paths,
        }
        self._mark("binaries", began)
        self._state = Path(tempfile.mkdtemp(prefix=f"{STATE_PREFIX}{os.getpid()}-"))
        step = time.monotonic()
        files = pki.write(self._state / "pki")
        context = admin.ssl_context(files)
        self._mark("certificates", step)

        etcd_client, etcd_peer, api_port = processes.free_ports(3)
        self.server = f"https://127.0.0.1:{api_port}"
        self.etcd = f"http://127.0.0.1:{etcd_client}"
        self._admin = api = admin.Admin(self.server, context)
        admin_kubeconfig = self._state / "admin.kubeconfig"
        admin_kubeconfig.write_bytes(admin.kubeconfig(self.server, files))

        step = time.monotonic()
        self._launch("etcd", components.etcd(paths["etcd"], self._state / "etcd", etcd_client, etcd_peer))
        self._wait("etcd", lambda: processes.http_ok(f"http://127.0.0.1:{etcd_client}/health", None))
        self._mark("etcd", step)

        step = time.monotonic()
        cert_dir = self._state / "apiserver"
        self._apiserver_argv = components.kube_apiserver(
            paths["kube-apiserver"], etcd_client, api_port, cert_dir, files, self._apiserver_args
        )
        self._launch("kube-apiserver", self._apiserver_argv)
        self._wait("kube-apiserver", lambda: api.ok("/readyz"))
        self._mark("kube-apiserver", step)

        if self.controllers:
            step = time.monotonic()
            self._launch(
                "kube-controller-manager",
                components.kube_controller_manager(paths["kube-controller-manager"], admin_kubeconfig, files),
            )
            scheduler = components.kube_scheduler(paths["kube-scheduler"], admin_kubeconfig)
            self._launch("kube-scheduler", scheduler)
            # The default ServiceAccount appears once the controllers run; pods need it.
            self._wait(
                "kube-controller-manager",
                lambda: api.ok("/api/v1/namespaces/default/serviceaccounts/default"),
            )
            self._provisioner = storage.start(api, self._state / "volumes")
            self._mark("controllers", step)

        if self.nodes:
            step = time.monotonic()
            config = self._state / "kwok.yaml"
            config.write_text(components.KWOK_CONFIG)
            self._launch("kwok", components.kwok(paths["kwok"], admin_kubeconfig, config))
            for index in range(self.nodes):
                api.request("POST", "/api/v1/nodes", components.fake_node(f"kwok-node-{index}"))
            self._wait("kwok", lambda: api.nodes_ready(self.nodes))
            self._mark("nodes", step)

        self.kubeconfig = admin_kubeconfig
        if self._requested_kubeconfig is not None:
            self._written_kubeconfig = admin_kubeconfig.read_bytes()
            processes.write_atomically(self._requested_kubeconfig, self._written_kubeconfig)
            self.kubeconfig = self._requested_kubeconfig
        self._mark("total", began)
        log.info(
            "local cluster ready at %s (%s); kubeconfig %s",
            self.server,
            ", ".join(f"{k} {v:.1f}s" for k, v in self.timings.items()),
            self.kubeconfig,
        )

    def _mark(self, what: str, since: float) -> None:
        self.timings[what] = time.monotonic() - since

    def _launch(self, name: str, argv: list[str], *, again: bool = False) -> None:
        """Start a component; ``again`` appends to its log, so the first run's stays readable."""
        assert self._state is not None
        log_path = self._state / f"{name}.log"
        log_file = log_path.open("ab" if again else "wb")
        if again:
            log_file.write(f"--- stencil: {name} started again\n".encode())
            log_file.flush()
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            cwd=self._state,
            start_new_session=True,
            preexec_fn=processes.die_with_parent(os.getpid()),
        )
        # Kept in start-up order, so teardown (which goes in reverse) still stops
        # a restarted API server after its clients and before etcd.
        order = self.needed_binaries()
        self._components = sorted(
            [*self._components, _Component(name, process, log_path, log_file)],
            key=lambda c: order.index(c.name),
        )
        log.debug("started %s (pid %d): %s", name, process.pid, " ".join(argv))

    def _wait(self, what: str, ready: Callable[[], bool]) -> None:
        deadline = time.monotonic() + self._startup_timeout
        while True:
            self._check_alive(f"waiting for {what}", StartError)
            if ready():
                return
            if time.monotonic() > deadline:
                logs = "\n".join(f"--- {c.name}\n{c.tail(15)}" for c in self._components)
                raise StartError(f"{what} was not ready after {self._startup_timeout:.0f}s\n{logs}")
            time.sleep(processes.POLL)

    def _check_alive(self, doing: str, error: type[ClusterError] = ClusterError) -> None:
        for component in self._components:
            if component.process.poll() is not None:
                raise error(
                    f"{component.name} exited with code {component.process.returncode} "
                    f"while {doing}:\n{component.tail()}"
                )

    # -- signals --------------------------------------------------------------

    def _trap_signals(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(signum) is signal.SIG_DFL:
                self._previous_handlers[signum] = signal.signal(signum, processes.interrupt)

    def _restore_signals(self) -> None:
        for signum, handler in self._previous_handlers.items():
            with contextlib.suppress(ValueError):
                signal.signal(signum, handler)
        self._previous_handlers = {}
