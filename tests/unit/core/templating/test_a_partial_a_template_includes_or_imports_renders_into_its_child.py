"""A file beside kind.yaml named ``_*.yaml`` or ``_*.j2`` is a partial: a template can include,
import or extend it, and its text renders into the template's child, CR values still values."""

from __future__ import annotations

from pathlib import Path

from engine.core.model import kinds
from engine.core.templating import rendering
from tests.unit import _kinds

CONFIGMAP = """\
{% import '_names.j2' as names with context %}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ names.of('config') }}
  labels:
{% filter indent(4, first=true) %}
{% include '_labels.yaml' %}
{% endfilter %}
"""
LABELS = "app: '{{ name }}'\ntier: {{ spec.tier }}\n"
NAMES = "{% macro of(what) %}{{ name }}-{{ what }}{% endmacro %}\n"


def test_a_template_includes_a_partial_and_calls_a_macro_it_imports(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, template=CONFIGMAP)
    (folder / "_labels.yaml").write_text(LABELS)
    (folder / "_names.j2").write_text(NAMES)

    [child] = rendering.render(kinds.load_kind(folder), _kinds.parent({"tier": "gold\nkind: Secret"}), [])

    assert child["kind"] == "ConfigMap"
    assert child["metadata"]["name"] == "w-config"
    assert {k: v for k, v in child["metadata"]["labels"].items() if "/" not in k} == {
        "app": "w",
        "tier": "gold\nkind: Secret",
    }


def test_a_template_extends_a_partial(tmp_path: Path) -> None:
    base = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: '{{ name }}'\ndata:\n"
    base += "{% block data %}{% endblock %}\n"
    template = "{% extends '_base.yaml.j2' %}\n{% block data %}\n  tier: '{{ spec.tier }}'\n{% endblock %}\n"
    folder = _kinds.kind_folder(tmp_path, template=template)
    (folder / "_base.yaml.j2").write_text(base)

    [located] = rendering.render_located(kinds.load_kind(folder), _kinds.parent({"tier": "gold"}), [])

    assert (located.child["metadata"]["name"], located.child["data"]) == ("w", {"tier": "gold"})
    assert located.where(("metadata", "name")) == (str(folder / "_base.yaml.j2"), 4)
    assert located.where(("data", "tier")) == (str(folder / "cm.yaml"), 3)
