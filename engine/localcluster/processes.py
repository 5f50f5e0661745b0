"""Processes of the local control plane: started to die with us, stopped without leftovers.

Every component runs in its own process group and, on Linux, with
``PR_SET_PDEATHSIG`` (``die_with_parent``), so the kernel kills it if Python dies
without cleaning up, even by ``kill -9``; ``terminate`` stops the groups and
reports any member left.  Signals are held (``holding_signals``) while a cluster
is torn down, so a second Ctrl-C cannot cut the cleanup short; a state directory
orphaned by ``kill -9`` is removed by ``sweep_orphaned_state``.
"""

from __future__ import annotations

import contextlib
import ctypes
import http.client
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

STATE_PREFIX = "stencil-cluster-"
STOP_GRACE = 5.0  # seconds a component gets to exit on SIGTERM before SIGKILL
POLL = 0.1


@contextlib.contextmanager
def holding_signals(held: list[int]) -> Iterator[None]:
    """Record instead of handle Ctrl-C, SIGTERM and SIGHUP while the block runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not None:  # None: a handler Python cannot restore
            previous[signum] = signal.signal(signum, lambda number, _: held.append(number))
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def interrupt(signum: int, frame: FrameType | None) -> None:
    # KeyboardInterrupt rather than SystemExit: pytest ends the session on it and
    # still runs fixture finalizers, where SystemExit would only fail one test.
    raise KeyboardInterrupt(f"signal {signal.Signals(signum).name}")


def http_ok(url: str, context: ssl.SSLContext | None) -> bool:
    try:
        with urllib.request.urlopen(url, context=context, timeout=5) as response:
            status: int = response.status
            return 200 <= status < 300
    except (OSError, http.client.HTTPException):  # refused, reset, TLS errors, error statuses
        return False


def free_ports(count: int) -> list[int]:
    # Held open together so the kernel hands out distinct ports; another process
    # could take one before our component binds it, a window of milliseconds.
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


_PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> Callable[[], None] | None:
    """A preexec_fn asking the kernel to SIGKILL the child when its parent dies."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before fork: nothing to import in the child

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return preexec


def terminate(processes: list[subprocess.Popen[bytes]]) -> list[int]:
    """SIGTERM each process group, SIGKILL what is left after a grace period.

    Returns the groups that still have members afterwards (should be none).
    """
    for process in processes:
        signal_group(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_GRACE
    for process in processes:
        try:
            process.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            signal_group(process.pid, signal.SIGKILL)
            process.wait()
    survivors = []
    for process in processes:
        # The leader is reaped; any other member of its group would still answer.
        if signal_group(process.pid, 0):
            signal_group(process.pid, signal.SIGKILL)
            time.sleep(POLL)
            if signal_group(process.pid, 0):
                survivors.append(process.pid)
    return survivors


def signal_group(pgid: int, signum: int) -> bool:
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        # A recycled id now belongs to someone else's group: not ours.
        return False
    return True


def sweep_orphaned_state() -> None:
    """Remove state directories whose owning Python process is gone (killed -9)."""
    for directory in Path(tempfile.gettempdir()).glob(f"{STATE_PREFIX}*"):
        pid_text = directory.name[len(STATE_PREFIX) :].split("-", 1)[0]
        if not pid_text.isdigit():
            continue
        try:
            os.kill(int(pid_text), 0)
        except ProcessLookupError:
            shutil.rmtree(directory, ignore_errors=True)
        except PermissionError:
            pass


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.write_bytes(data)
    partial.chmod(0o600)
    partial.replace(path)
