"""No child carries ``stencil.dev/kind-bundle``, the label that makes the engine load a ConfigMap
as a kind: a kind that put its CR's labels on a ConfigMap would let a tenant write a kind.
``stencil render`` refuses such a child at its template line, in any namespace."""

from __future__ import annotations

from pathlib import Path

from tests.security import _rights

BUNDLE = {
    "target": "team-a",
    "labels": {"stencil.dev/kind-bundle": "true"},
    "data": {"kind.yaml": "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\n"},
}


def test_a_child_labelled_as_a_kind_bundle_is_refused_at_its_line(tmp_path: Path) -> None:
    plain = {"target": "team-a", "labels": {"app": "web"}, "data": {"key": "value"}}
    folder = _rights.kind_folder(tmp_path, _rights.TEMPLATE, plain)
    assert _rights.render(folder, plain, tmp_path).exit_code == 0

    result = _rights.render(folder, BUNDLE, tmp_path)

    assert result.exit_code != 0
    assert "kind.yaml" not in result.stdout
    line = _rights.TEMPLATE.splitlines().index("  labels: {{ spec.labels }}") + 1
    assert f"{folder / 'child.yaml'}:{line}: metadata.labels: " in result.output, result.output
    assert "the label stencil.dev/kind-bundle marks a kind the engine loads" in result.output
