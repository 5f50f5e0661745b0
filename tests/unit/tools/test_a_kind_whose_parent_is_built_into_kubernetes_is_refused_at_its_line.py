"""``parent:`` is a custom resource the kind owns: a parent of a group Kubernetes serves itself is
refused when the kind loads, at kind.yaml's parent.apiVersion, and a kind so refused names no parent
(the engine would otherwise mark every such object with the error).  Custom groups, those under
k8s.io among them, load; so does every shipped kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from engine.core.model import apis, kinds
from engine.core.model.errors import KindError
from engine.tools import cli
from tests.unit import _kinds

ROOT = Path(__file__).resolve().parents[3]
BUILTIN = sorted({("/".join(filter(None, (group, "v1"))), kind) for group, kind in apis.BUILTIN_KINDS})
OWNABLE = ["example.com/v1", "samplecrd.k8s.io/v1", "gateway.networking.k8s.io/v1", "apps.example.com/v1"]


def kind_yaml(folder: Path, api_version: str, kind: str = "Web") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    text = _kinds.KIND_YAML.replace(_kinds.API_VERSION, api_version)
    text = text.replace(f"kind: {_kinds.KIND}", f"kind: {kind}")
    (folder / kinds.KIND_FILE).write_text(text)
    return folder


@pytest.mark.parametrize(("api_version", "kind"), [*BUILTIN, ("autoscaling/v2", "HorizontalPodAutoscaler")])
def test_a_builtin_parent_is_refused_at_its_api_version(tmp_path: Path, api_version: str, kind: str) -> None:
    folder = kind_yaml(tmp_path / "web", api_version, kind)

    with pytest.raises(KindError, match="not a way to attach to objects it does not own") as caught:
        kinds.load_kind(folder)

    line = kinds_line(folder, "  apiVersion:")
    assert (caught.value.file, caught.value.line, caught.value.field) == (
        str(folder / kinds.KIND_FILE),
        line,
        "parent.apiVersion",
    )
    assert kind in str(caught.value)


def kinds_line(folder: Path, start: str) -> int:
    lines = (folder / kinds.KIND_FILE).read_text().splitlines()
    return next(number for number, text in enumerate(lines, 1) if text.startswith(start))


@pytest.mark.parametrize("api_version", OWNABLE)
def test_a_custom_group_loads_under_k8s_io_too(tmp_path: Path, api_version: str) -> None:
    assert kinds.load_kind(kind_yaml(tmp_path / "web", api_version)).api_version == api_version


def test_a_folder_refused_for_its_builtin_parent_names_no_parent_to_mark(tmp_path: Path) -> None:
    kind_yaml(tmp_path / "sets", "apps/v1", "StatefulSet")
    kind_yaml(tmp_path / "web", "example.com/v1")

    loaded, broken = kinds.load_kinds(tmp_path)

    assert list(loaded) == ["web"]
    assert (broken["sets"].api_version, broken["sets"].kind) == (None, None)


def test_lint_shows_the_refusal_at_its_file_and_line(tmp_path: Path) -> None:
    folder = kind_yaml(tmp_path / "sets", "apps/v1", "StatefulSet")

    result = CliRunner().invoke(cli.main, ["lint", str(folder)])

    assert result.exit_code == 1
    where = f"{folder / kinds.KIND_FILE}:{kinds_line(folder, '  apiVersion:')}"
    assert where in result.output and "StatefulSet (apps/v1) is built into Kubernetes" in result.output


SHIPPED = [*kinds.kind_folders(ROOT / "templates"), *kinds.kind_folders(ROOT / "examples" / "kro")]


@pytest.mark.parametrize("folder", [*SHIPPED, ROOT / "examples" / "webapp"], ids=lambda p: p.name)
def test_every_shipped_kind_still_loads(folder: Path) -> None:
    assert not apis.is_builtin_group(apis.group_of(kinds.load_kind(folder).api_version))
