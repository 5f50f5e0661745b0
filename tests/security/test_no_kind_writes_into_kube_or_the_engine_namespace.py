"""No kind writes into ``kube-*`` or the engine's own namespace, whatever its placement allows:
with ``placement.namespaces: ["*"]`` and the namespace taken from the CR, ``stencil render``
refuses a child there at the template line that names the namespace (offline the engine's
namespace is the one the install guide puts it in, ``stencil-system``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security import _rights

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: '{{ name }}'
  namespace: '{{ spec.target }}'
data:
  key: value
"""
ANYWHERE = "placement:\n  namespaces: ['*']\n"


@pytest.mark.parametrize("target", ["kube-system", "kube-public", "stencil-system"])
def test_a_child_in_a_protected_namespace_is_refused_at_its_line(tmp_path: Path, target: str) -> None:
    folder = _rights.kind_folder(tmp_path, TEMPLATE, {"target": "team-b"}, ANYWHERE)
    elsewhere = _rights.render(folder, {"target": "team-b"}, tmp_path)
    assert elsewhere.exit_code == 0 and "namespace: team-b" in elsewhere.stdout, elsewhere.output

    result = _rights.render(folder, {"target": target}, tmp_path)

    assert result.exit_code != 0
    assert result.stdout.count("kind: ConfigMap") == 0
    line = TEMPLATE.splitlines().index("  namespace: '{{ spec.target }}'") + 1
    assert f"{folder / 'child.yaml'}:{line}: metadata.namespace: " in result.output, result.output
    assert f"namespace {target!r} is off limits to every kind" in result.output
