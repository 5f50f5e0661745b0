"""No kind writes into ``kube-*`` or the engine's own namespace, whatever its placement allows:
with ``placement.namespaces: ["*"]`` and the namespace taken from the CR, ``stencil render``
refuses a child there at the template line that names the namespace (offline the engine's
namespace is the one the install guide puts it in, ``stencil-system``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security import _rights


def spec(target: str) -> dict[str, object]:
    return {"target": target, "labels": {}, "data": {"key": "value"}}


@pytest.mark.parametrize("target", ["kube-system", "kube-public", "stencil-system"])
def test_a_child_in_a_protected_namespace_is_refused_at_its_line(tmp_path: Path, target: str) -> None:
    folder = _rights.kind_folder(tmp_path, _rights.TEMPLATE, spec("team-b"), _rights.ANYWHERE)
    elsewhere = _rights.render(folder, spec("team-b"), tmp_path)
    assert elsewhere.exit_code == 0 and "namespace: team-b" in elsewhere.stdout, elsewhere.output

    result = _rights.render(folder, spec(target), tmp_path)

    assert result.exit_code != 0
    assert result.stdout.count("kind: ConfigMap") == 0
    line = _rights.TEMPLATE.splitlines().index("  namespace: '{{ spec.target }}'") + 1
    assert f"{folder / 'child.yaml'}:{line}: metadata.namespace: " in result.output, result.output
    assert f"namespace {target!r} is off limits to every kind" in result.output
