"""A self-signed serving certificate, made in a short-lived child process.

``cryptography`` is what makes a key and a certificate, and importing it keeps 7.7 MiB resident
(its OpenSSL bindings): every replica would pay that for its whole life for one use at start.
So the engine runs this module as a child that writes the pair into a folder and exits::

    python -m engine.runtime.telemetry.selfsigned FOLDER NAME [NAME...]
"""

from __future__ import annotations

import datetime
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from engine.core.model import errors

CERT_NAME, KEY_NAME = "tls.crt", "tls.key"
_MODULE = "engine.runtime.telemetry.selfsigned"


def make(names: Sequence[str]) -> tuple[bytes, bytes]:
    """A fresh ECDSA P-256 certificate for ``names`` and its key, PEM-encoded; valid a year."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(n) for n in names]), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return cert.public_bytes(serialization.Encoding.PEM), key_pem


def write(folder: Path, names: Sequence[str]) -> None:
    """``tls.crt`` and ``tls.key`` (readable by its owner alone) for ``names`` in ``folder``."""
    cert_pem, key_pem = make(names)
    (folder / CERT_NAME).write_bytes(cert_pem)
    key = folder / KEY_NAME
    key.touch(mode=0o600)
    key.write_bytes(key_pem)


def in_a_child(folder: Path, names: Sequence[str]) -> None:
    """``write`` run by a child process, so this one never imports ``cryptography``."""
    try:
        subprocess.run(
            [sys.executable, "-m", _MODULE, str(folder), *names], check=True, capture_output=True, timeout=60
        )
    except subprocess.CalledProcessError as error:
        said = error.stderr.decode(errors="replace").strip().splitlines()
        problem = said[-1] if said else f"exit {error.returncode}"
        raise errors.StencilError(f"cannot make a self-signed certificate: {problem}") from error
    except (OSError, subprocess.TimeoutExpired) as error:
        raise errors.StencilError(f"cannot make a self-signed certificate: {error}") from error


if __name__ == "__main__":
    write(Path(sys.argv[1]), sys.argv[2:])
