"""The metrics port's self-signed certificate is made by a child process, so the engine itself
never imports ``cryptography`` (7.7 MiB resident, for one use at start): checked in a fresh
interpreter that imports what ``stencil run`` imports and serves TLS on a certificate made so.
A child that fails is reported with what it said."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.model.errors import StencilError
from engine.runtime.telemetry import selfsigned

ROOT = Path(__file__).resolve().parents[4]
SERVE = """
import socket, ssl, sys, threading
from engine.tools.cli.operating import run
from engine.runtime.serving import manager
from engine.runtime.telemetry import delegation, observability

server_side = delegation.tls_context(None, ["localhost"])
listener = socket.create_server(("127.0.0.1", 0))
def accept():
    peer, _ = listener.accept()
    with server_side.wrap_socket(peer, server_side=True) as tls:
        tls.recv(1)
threading.Thread(target=accept, daemon=True).start()
client_side = ssl.create_default_context()
client_side.check_hostname = False
client_side.verify_mode = ssl.CERT_NONE
with socket.create_connection(listener.getsockname()) as raw, client_side.wrap_socket(raw) as tls:
    names = tls.getpeercert(binary_form=True) is not None
print(names, sorted({name.split(".")[0] for name in sys.modules} & {"cryptography", "_cffi_backend"}))
"""


def test_serving_on_a_self_signed_certificate_imports_no_cryptography() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SERVE],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "[]"]


def test_a_child_that_cannot_write_the_certificate_is_reported_with_its_error(tmp_path: Path) -> None:
    with pytest.raises(StencilError, match=r"cannot make a self-signed certificate: .*No such file"):
        selfsigned.in_a_child(tmp_path / "missing", ["localhost"])
