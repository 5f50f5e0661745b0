"""Each template has an id: the file name without .yaml or .yaml.j2, or the one kind.yaml gives it."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from tests.unit import _kinds


def _folder(tmp_path: Path, templates: str, files: tuple[str, ...]) -> Path:
    (tmp_path / "kind.yaml").write_text(_kinds.KIND_YAML + templates)
    for name in files:
        (tmp_path / name).write_text("x: 1\n")
    return tmp_path


def test_a_listed_file_name_gives_its_stem(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path, "templates: [redis-leader.yaml, web.yaml.j2]\n", ("redis-leader.yaml", "web.yaml.j2")
    )
    assert [t.id for t in kinds.load_kind(folder).templates] == ["redis-leader", "web"]


def test_templates_found_in_the_folder_get_their_stems(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "", ("deployment.yaml", "service.yaml.j2"))
    assert [t.id for t in kinds.load_kind(folder).templates] == ["deployment", "service"]


def test_a_mapping_entry_gives_its_id_and_after(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path,
        "templates:\n  - redis-leader.yaml\n"
        "  - {file: follower.yaml, id: redis-follower, after: [redis-leader]}\n",
        ("redis-leader.yaml", "follower.yaml"),
    )
    templates = kinds.load_kind(folder).templates
    assert [(t.name, t.id, t.after) for t in templates] == [
        ("redis-leader.yaml", "redis-leader", ()),
        ("follower.yaml", "redis-follower", ("redis-leader",)),
    ]


def test_a_mapping_entry_without_id_gets_the_stem(tmp_path: Path) -> None:
    folder = _folder(tmp_path, "templates:\n  - {file: web.yaml}\n", ("web.yaml",))
    assert kinds.load_kind(folder).templates[0].id == "web"


def test_a_template_built_in_memory_defaults_to_its_stem() -> None:
    assert kinds.Template(Path("templates/web/config-map.yaml.j2"), "").id == "config-map"
