"""A kind that reads a reference renders offline as it does live: ``stencil render``, ``render
--status`` and ``lint`` find the object in the kind's ``tests/fixtures.yaml`` (or ``--observed``),
in the templates, in the status rules and in ``deleteWhen`` alike.  They used to fail with "stencil
lint and render do not read them"."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.tools import cli
from tests.unit import _lintkinds

REFERENCES = """templates: [cm.yaml]
references:
  - {id: settings, apiVersion: v1, kind: ConfigMap, name: "'settings'"}
status:
  fields:
    echoed: references.settings.data.greeting
"""
TEMPLATE = _lintkinds.configmap('  greeting: "{{ references.settings.data.greeting }}"\n')
SETTINGS = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {greeting: %s}\n"


def folder(tmp_path: Path, greeting: str | None = "hello") -> Path:
    kind = _lintkinds.kind_folder(tmp_path, {"cm.yaml": TEMPLATE}, kind_yaml_extra=REFERENCES)
    if greeting is not None:
        (kind / "tests").mkdir()
        (kind / "tests" / "fixtures.yaml").write_text(SETTINGS % greeting)
    return kind


def run(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli.main, [str(arg) for arg in args])
    return result.exit_code, result.stdout, result.stderr


def test_render_reads_the_reference_from_the_kinds_fixtures(tmp_path: Path) -> None:
    kind = folder(tmp_path)
    code, out, err = run("render", kind, "-f", kind / "examples" / "small.yaml")
    assert code == 0, err
    [child] = yaml.safe_load_all(out)
    assert child["data"] == {"greeting": "hello"}


def test_render_status_shows_what_the_rules_read_of_the_reference(tmp_path: Path) -> None:
    kind = folder(tmp_path)
    code, out, err = run("render", kind, "-f", kind / "examples" / "small.yaml", "--status")
    assert code == 0, err
    [parent] = yaml.safe_load_all(out)
    assert parent["status"]["echoed"] == "hello"
    ready = next(c for c in parent["status"]["conditions"] if c["type"] == "Ready")
    assert ready["status"] == "True"


def test_observed_objects_are_read_as_well_and_namespaceless_ones_in_the_parents_namespace(
    tmp_path: Path,
) -> None:
    kind = folder(tmp_path, greeting=None)
    observed = tmp_path / "observed.yaml"
    observed.write_text(SETTINGS % "from-observed")
    code, out, err = run("render", kind, "-f", kind / "examples" / "small.yaml", "--observed", observed)
    assert code == 0, err
    assert next(yaml.safe_load_all(out))["data"] == {"greeting": "from-observed"}


def test_a_missing_reference_says_where_to_give_it(tmp_path: Path) -> None:
    kind = folder(tmp_path, greeting=None)
    code, _, err = run("render", kind, "-f", kind / "examples" / "small.yaml")
    assert code == 1
    assert "reference settings: ConfigMap v1 default/settings not found" in err
    assert "tests/fixtures.yaml or with --observed FILE" in err


def test_lint_renders_the_examples_with_the_reference_and_finds_nothing(tmp_path: Path) -> None:
    kind = folder(tmp_path)
    code, out, err = run("lint", kind, "--crds", tmp_path / "crds")
    assert code == 0, out + err
    assert "references" not in out
