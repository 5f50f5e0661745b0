"""`related` in a template is said to be a status rules' name, with what a template can read.

Lint used to say only "unknown name 'related'" and rendering "'related' is undefined".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from engine.tools import linter
from tests.unit import _kinds, _lintkinds

READS = "a template reads parent, spec, metadata, name, namespace, children, child(kind, name), references"


def test_rendering_says_related_is_for_status_rules_and_what_a_template_reads() -> None:
    template = _kinds.configmap("  pods: '{{ related.Pod | length }}'\n")

    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [])

    assert caught.value.line == 6
    assert "`related` is for status rules (kind.yaml)" in caught.value.message
    assert READS in caught.value.message


def test_lint_says_related_is_for_status_rules_and_what_a_template_reads(tmp_path: Path) -> None:
    template = _lintkinds.configmap("  pods: '{{ related.Pod | length }}'\n")
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": template})

    findings = [f for f in linter.lint([folder]) if f.line == _lintkinds.line_of(template, "related")]

    assert [(f.check, f.message) for f in findings] == [
        (
            "unknown-name",
            f"unknown name 'related' in a template: `related` is for status rules (kind.yaml); {READS}",
        )
    ]
