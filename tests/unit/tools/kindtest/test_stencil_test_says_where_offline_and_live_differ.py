"""``stencil test`` holds each example's offline render to what the engine did live: a child the
engine applied from other rendered content (its hash), a child only one side has, or a condition
or status field the offline rules derive differently is named (``kindtest.agreement``)."""

from __future__ import annotations

from pathlib import Path

from engine.core.decisions.plans import planning
from engine.core.model import apis, kinds
from engine.core.offline import preview
from engine.core.templating import rendering
from engine.tools.kindtest import agreement
from tests.unit import _lintkinds

RULES = "templates: [cm.yaml]\nstatus:\n  fields:\n    image: spec.image\n"
TEMPLATE = _lintkinds.configmap('  image: "{{ spec.image }}"\n')
PARENT = {
    "apiVersion": _lintkinds.API_VERSION,
    "kind": _lintkinds.KIND,
    "metadata": {"name": "small", "namespace": "team", "uid": "1234", "generation": 1},
    "spec": {"image": "nginx"},
}


def live(tmp_path: Path) -> tuple[kinds.Kind, list[dict[str, object]], dict[str, object]]:
    """The kind, the children the engine applied and the parent with the status it wrote."""
    kind = kinds.load_kind(_lintkinds.kind_folder(tmp_path, {"cm.yaml": TEMPLATE}, kind_yaml_extra=RULES))
    children = [planning.with_hash(child) for child in rendering.render(kind, PARENT, [])]
    shown, _ = preview.parent_status(kind, PARENT, "2026-01-01T00:00:00Z", observed=children)
    return kind, children, {**PARENT, "status": shown["status"]}


def differ(kind: kinds.Kind, parent: dict[str, object], children: list[dict[str, object]]) -> list[str]:
    return agreement.disagreements(kind, parent, children, [], [], is_namespaced=apis.builtin_is_namespaced)


def test_what_the_engine_did_agrees_with_itself(tmp_path: Path) -> None:
    kind, children, parent = live(tmp_path)
    assert differ(kind, parent, children) == []


def test_a_child_applied_from_other_content_is_named(tmp_path: Path) -> None:
    kind, _, parent = live(tmp_path)
    other = {**PARENT, "spec": {"image": "httpd"}}
    applied = [planning.with_hash(child) for child in rendering.render(kind, other, [])]
    [said] = differ(kind, parent, applied)
    assert said.startswith("offline and live differ for Web small: ConfigMap") and "hashes to" in said


def test_a_child_only_one_side_has_is_named(tmp_path: Path) -> None:
    kind, children, parent = live(tmp_path)
    extra = {**children[0], "metadata": {**children[0]["metadata"], "name": "stray"}}  # type: ignore[dict-item]
    said = differ(kind, parent, [*children, extra])
    assert any(
        "the engine applied ConfigMap" in s and "stray" in s and "offline does not render" in s for s in said
    )
    assert any("which the engine did not apply" in s for s in differ(kind, parent, []))


def test_a_status_the_engine_wrote_otherwise_is_named(tmp_path: Path) -> None:
    kind, children, parent = live(tmp_path)
    status = dict(parent["status"])  # type: ignore[arg-type]
    wrote = {**parent, "status": {**status, "image": "httpd", "conditions": []}}
    said = differ(kind, wrote, children)
    assert "offline and live differ for Web small: status.image: offline 'nginx', live 'httpd'" in said
    assert any(s.endswith("condition Ready: offline True Ready, live None None") for s in said)
