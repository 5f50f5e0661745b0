"""``stencil diff`` against a converged parent whose Secret child holds a ``random_string``
password says nothing changes when its user may read the engine's seed key Secret: it renders
under the engine's key.  Pointed at a Secret that is not there, it says in a note that generated
values are drawn under the offline key, and shows the password as the change it then is, masked
as ``kubectl diff`` masks a Secret's data.  Before,
the live diff always rendered under the offline key, and always showed the password changed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from engine.runtime.cluster import seedsecret
from engine.runtime.cluster.kube import Kube, Resource
from engine.tools import manifests
from engine.tools.cli import main
from tests.integration._engine import condition_is, eventually, running_engine
from tests.integration._widgets import widget, write_kind

CRDS = Path(__file__).parent / "fixtures"  # the Widget CRD
SECRET = """\
apiVersion: v1
kind: Secret
metadata:
  name: "{{ name }}-password"
stringData:
  password: "{{ random_string(24, name) }}"
"""


def diff(local_cluster: Any, kind_dir: Path, namespace: str, file: Path, secret: str) -> Any:
    args = [
        "diff",
        str(kind_dir),
        "-f",
        str(file),
        "-n",
        namespace,
        "--crds",
        str(CRDS),
        "--seed-key-secret",
        secret,
    ]
    return CliRunner().invoke(main, [*args, "--kubeconfig", str(local_cluster.kubeconfig)])


def test_diff_of_a_generated_password_is_unchanged_under_the_engines_key_and_said_otherwise(
    kube: Kube, namespace: str, widgets: Resource, local_cluster: Any, tmp_path: Path
) -> None:
    templates = write_kind(tmp_path / "templates", {"secret.yaml": SECRET})
    file = tmp_path / "w.yaml"
    file.write_text(yaml.safe_dump(widget("w")))
    key = seedsecret.SeedKey(kube, namespace)
    with running_engine(kube, templates, namespace, seed_key=key):
        manifests.apply_all(kube, [widget("w")], namespace)
        eventually(condition_is(kube, widgets, "w", namespace, "Ready", "True"))

        engines = f"{namespace}/{seedsecret.SECRET_NAME}"
        keyed = diff(local_cluster, templates / "widget", namespace, file, engines)
        assert keyed.exit_code == 0, keyed.output
        assert "offline key" not in keyed.output

        unkeyed = diff(local_cluster, templates / "widget", namespace, file, f"{namespace}/no-such-secret")
        assert unkeyed.exit_code == 1, unkeyed.output
        assert "random_string values are drawn under the offline key" in unkeyed.output
        assert f"there is no Secret {namespace}/no-such-secret" in unkeyed.output
        assert f"Secret {namespace}/w-password (data.password)" in unkeyed.output
        assert "*** (before)" in unkeyed.output and "*** (after)" in unkeyed.output
        live = kube.get(kube.resource("v1", "Secret"), "w-password", namespace)
        assert live is not None and live["data"]["password"] not in unkeyed.output, "the diff shows no value"
