"""A kind writes only the child kinds derived for it: what its templates spell out and its
examples render, which is what ``stencil rbac`` grants it.  A Secret behind a branch no example
takes, its kind computed so that no template spells it, is refused at its template line when a
CR takes that branch, rather than written with rights given for the other kinds."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.tools import cli
from tests.security import _rights

TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: '{{ name }}'
data:
  mode: '{{ spec.mode }}'
{% if spec.mode == 'vault' %}
---
apiVersion: v1
kind: '{{ "Sec" ~ "ret" }}'
metadata:
  name: '{{ name }}-token'
stringData:
  token: x
{% endif %}
"""


def test_a_child_kind_neither_spelled_nor_rendered_by_an_example_is_refused_at_its_line(
    tmp_path: Path,
) -> None:
    # A collection: the template may render a second child, which is then refused for its kind.
    folder = _rights.kind_folder(
        tmp_path, TEMPLATE, {"mode": "plain"}, "templates: [{file: child.yaml, collection: true}]\n"
    )
    where = ["--templates", str(tmp_path / "templates"), "--crds", str(tmp_path / "crds")]
    rbac = CliRunner().invoke(cli.main, ["rbac", *where])
    assert rbac.exit_code == 0, rbac.output
    # The kinds' ClusterRole; the engine's namespace Role holds its own seed key's Secret apart.
    kinds_role = next(yaml.safe_load_all(rbac.output))
    granted = {resource for rule in kinds_role["rules"] for resource in rule["resources"]}
    assert kinds_role["kind"] == "ClusterRole"
    assert "secrets" not in granted and "configmaps" in granted

    plain = _rights.render(folder, {"mode": "plain"}, tmp_path)
    assert plain.exit_code == 0, plain.output
    result = _rights.render(folder, {"mode": "vault"}, tmp_path)

    assert result.exit_code != 0
    assert "kind: Secret" not in result.stdout
    line = TEMPLATE.splitlines().index("""kind: '{{ "Sec" ~ "ret" }}'""") + 1
    assert f"{folder / 'child.yaml'}:{line}: kind: " in result.output, result.output
    assert "Secret (v1) is not a child kind derived for this kind" in result.output
