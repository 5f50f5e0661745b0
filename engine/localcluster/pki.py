"""The certificates and keys of a throw-away control plane.

A real kube-apiserver insists on TLS, and RBAC needs a client that proves who
it is; the cheapest honest identity is a client certificate in the group
``system:masters``, signed by a CA the API server trusts.  Everything here is
generated fresh for each plane and lives only in its state directory, so it
is never worth a second thought about rotation or strength: keys are ECDSA
P-256, which takes a millisecond to generate where RSA takes a tenth of a
second, and kube-apiserver accepts it for serving, client auth and
service-account token signing alike.
"""

from __future__ import annotations

import datetime
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

# The first address of the default service range (10.0.0.0/24): the ClusterIP
# the API server gives the ``kubernetes`` Service, which in-cluster clients dial.
SERVICE_IP = "10.0.0.1"
SERVING_DNS_NAMES = (
    "localhost",
    "kubernetes",
    "kubernetes.default",
    "kubernetes.default.svc",
    "kubernetes.default.svc.cluster.local",
)
SERVING_IPS = ("127.0.0.1", SERVICE_IP)
ADMIN_USER = "stencil-admin"
ADMIN_GROUP = "system:masters"

_VALIDITY = datetime.timedelta(days=365)
# Backdated so a clock that is a little behind does not see "not yet valid".
_BACKDATE = datetime.timedelta(hours=1)


@dataclass(frozen=True)
class KeyPair:
    """A certificate and its private key, PEM-encoded."""

    cert_pem: bytes
    key_pem: bytes


@dataclass(frozen=True)
class Files:
    """Where ``write`` put each piece, as the components' flags want them."""

    ca_cert: Path
    ca_key: Path
    serving_cert: Path
    serving_key: Path
    admin_cert: Path
    admin_key: Path
    service_account_key: Path
    service_account_public_key: Path


def _new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def _builder(
    subject: x509.Name, issuer: x509.Name, public_key: ec.EllipticCurvePublicKey
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - _BACKDATE)
        .not_valid_after(now + _VALIDITY)
    )


class Authority:
    """A certificate authority that signs the plane's serving and client certificates."""

    def __init__(self, common_name: str = "stencil-local-ca") -> None:
        self._key = _new_key()
        self._name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
        self._cert = (
            _builder(self._name, self._name, self._key.public_key())
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(_key_usage(cert_sign=True), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self._key.public_key()), critical=False)
            .sign(self._key, hashes.SHA256())
        )

    @property
    def pair(self) -> KeyPair:
        return KeyPair(self._cert.public_bytes(serialization.Encoding.PEM), _key_pem(self._key))

    def _issue(
        self, subject: x509.Name, usage: x509.ObjectIdentifier, extra: Sequence[x509.ExtensionType] = ()
    ) -> KeyPair:
        key = _new_key()
        builder = (
            _builder(subject, self._name, key.public_key())
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(_key_usage(cert_sign=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()), critical=False
            )
        )
        for extension in extra:
            builder = builder.add_extension(extension, critical=False)
        cert = builder.sign(self._key, hashes.SHA256())
        return KeyPair(cert.public_bytes(serialization.Encoding.PEM), _key_pem(key))

    def serving(
        self, dns_names: Sequence[str] = SERVING_DNS_NAMES, ips: Sequence[str] = SERVING_IPS
    ) -> KeyPair:
        """A server certificate valid for every name a client may dial the API server by."""
        names: list[x509.GeneralName] = [x509.DNSName(n) for n in dns_names]
        names += [x509.IPAddress(ipaddress.ip_address(ip)) for ip in ips]
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")])
        return self._issue(subject, ExtendedKeyUsageOID.SERVER_AUTH, [x509.SubjectAlternativeName(names)])

    def client(self, user: str, groups: Sequence[str] = ()) -> KeyPair:
        """A client certificate; Kubernetes reads the user from CN and groups from O."""
        attributes = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, g) for g in groups]
        attributes.append(x509.NameAttribute(NameOID.COMMON_NAME, user))
        return self._issue(x509.Name(attributes), ExtendedKeyUsageOID.CLIENT_AUTH)


def _key_usage(*, cert_sign: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=True,
        content_commitment=False,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=cert_sign,
        crl_sign=cert_sign,
        encipher_only=False,
        decipher_only=False,
    )


def service_account_keys() -> tuple[bytes, bytes]:
    """A (private, public) PEM pair that signs and verifies service-account tokens."""
    key = _new_key()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return _key_pem(key), public


def write(directory: Path) -> Files:
    """Generate a CA, serving, admin and service-account material into ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    authority = Authority()
    files = Files(
        ca_cert=directory / "ca.crt",
        ca_key=directory / "ca.key",
        serving_cert=directory / "apiserver.crt",
        serving_key=directory / "apiserver.key",
        admin_cert=directory / "admin.crt",
        admin_key=directory / "admin.key",
        service_account_key=directory / "sa.key",
        service_account_public_key=directory / "sa.pub",
    )
    pairs = (
        (authority.pair, files.ca_cert, files.ca_key),
        (authority.serving(), files.serving_cert, files.serving_key),
        (authority.client(ADMIN_USER, [ADMIN_GROUP]), files.admin_cert, files.admin_key),
    )
    for pair, cert_path, key_path in pairs:
        cert_path.write_bytes(pair.cert_pem)
        _write_private(key_path, pair.key_pem)
    private, public = service_account_keys()
    _write_private(files.service_account_key, private)
    files.service_account_public_key.write_bytes(public)
    return files


def _write_private(path: Path, data: bytes) -> None:
    path.touch(mode=0o600)
    path.write_bytes(data)
