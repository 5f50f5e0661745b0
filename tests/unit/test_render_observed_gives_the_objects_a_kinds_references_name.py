"""``stencil render --observed FILE`` gives a kind's templates the objects its references name, as
the engine's caches would; a required reference FILE does not hold is an error naming it."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.unit import _lintkinds, _observed

CR = _lintkinds.EXAMPLE.replace("name: small", "name: shop")
CONFIG = {
    "apiVersion": "v1",
    "kind": "ConfigMap",
    "metadata": {"name": "shop-config", "namespace": "default"},
    "data": {"ECHO": "hello"},
}


def render(tmp_path: Path, observed: list[dict[str, object]]) -> tuple[int, str]:
    folder = _observed.echo_kind(tmp_path)
    result = _observed.render(tmp_path, folder, CR, yaml.safe_dump_all(observed))
    return result.exit_code, result.output


def test_the_template_reads_the_referenced_object_from_the_observed_file(tmp_path: Path) -> None:
    code, output = render(tmp_path, [CONFIG])
    assert code == 0, output
    [child] = list(yaml.safe_load_all(output))
    assert child["data"] == {"echo": "hello"}


def test_a_required_reference_the_file_does_not_hold_is_an_error_naming_it(tmp_path: Path) -> None:
    other = {**CONFIG, "metadata": {"name": "elsewhere", "namespace": "default"}}
    code, output = render(tmp_path, [other])
    assert code != 0
    assert "reference config: ConfigMap" in output and "shop-config" in output
    assert "--observed" in output
