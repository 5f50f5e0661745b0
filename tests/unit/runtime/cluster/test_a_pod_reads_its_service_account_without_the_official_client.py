"""A process in a pod finds the API server and its token as client-go does (``incluster``): the
service's two environment variables, the service account's CA and token, the token read again
once a minute (the kubelet replaces a projected token before it expires), and never by the
official client, whose import costs every replica 16.5 MiB."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.model import errors
from engine.runtime.cluster import incluster

ROOT = Path(__file__).resolve().parents[4]
ENV = {"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def account(tmp_path: Path, token: str = "first\n", ca: str = "-----BEGIN CERTIFICATE-----\n") -> Path:
    (tmp_path / "token").write_text(token)
    (tmp_path / "ca.crt").write_text(ca)
    return tmp_path


def test_the_address_ca_and_token_come_from_the_service_and_the_account(tmp_path: Path) -> None:
    found = incluster.load(ENV, account(tmp_path))
    assert found.host == "https://10.96.0.1:443"
    assert found.ssl_ca_cert == str(tmp_path / "ca.crt")
    assert found.get_api_key_with_prefix("authorization") == "Bearer first"  # the file's newline dropped
    assert found.get_api_key_with_prefix("BearerToken") is None


def test_an_ipv6_service_address_is_bracketed(tmp_path: Path) -> None:
    found = incluster.load({**ENV, "KUBERNETES_SERVICE_HOST": "fd00::1"}, account(tmp_path))
    assert found.host == "https://[fd00::1]:443"


def test_the_token_is_read_again_once_a_minute_and_kept_if_it_cannot_be(tmp_path: Path) -> None:
    clock = Clock()
    found = incluster.load(ENV, account(tmp_path), clock)
    (tmp_path / "token").write_text("second")
    clock.now = incluster.TOKEN_REREAD - 1
    assert found.get_api_key_with_prefix("authorization") == "Bearer first"
    clock.now = incluster.TOKEN_REREAD
    assert found.get_api_key_with_prefix("authorization") == "Bearer second"
    (tmp_path / "token").unlink()
    clock.now = 2 * incluster.TOKEN_REREAD
    assert found.get_api_key_with_prefix("authorization") == "Bearer second"


@pytest.mark.parametrize(
    ("environ", "files", "said"),
    [
        ({}, {"token": "t", "ca.crt": "c"}, "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT"),
        ({**ENV, "KUBERNETES_SERVICE_PORT": ""}, {"token": "t", "ca.crt": "c"}, "not both set"),
        (ENV, {"token": "t"}, "service-account CA ({dir}/ca.crt) cannot be read"),
        (ENV, {"token": " \n", "ca.crt": "c"}, "service-account token ({dir}/token) is empty"),
    ],
)
def test_what_is_missing_is_said(
    tmp_path: Path, environ: dict[str, str], files: dict[str, str], said: str
) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(errors.StencilError) as refused:
        incluster.load(environ, tmp_path)
    assert said.format(dir=tmp_path) in str(refused.value)


def test_the_engines_client_in_a_pod_does_not_import_the_official_client(tmp_path: Path) -> None:
    account(tmp_path)
    program = (
        "import sys\n"
        "from pathlib import Path\n"
        "import engine.tools.cli.operating.run\n"
        "from engine.runtime.cluster import incluster\n"
        "from engine.runtime.cluster.kube import Kube\n"
        f"incluster.ACCOUNT = Path({str(tmp_path)!r})\n"
        "kube = Kube.auto()\n"
        "assert kube._config.host == 'https://10.96.0.1:443', kube._config.host\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'kubernetes'))\n"
    )
    environ = {**os.environ, **ENV, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    environ.pop("KUBECONFIG", None)
    ran = subprocess.run(
        [sys.executable, "-c", program], env=environ, capture_output=True, text=True, check=False
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"
