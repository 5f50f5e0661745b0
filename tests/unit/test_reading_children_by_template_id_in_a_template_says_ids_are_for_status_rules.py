"""`children.<id>` in a template is said to be for status rules, with how a template reads a child.

It used to fail with "children.service: not set in the observed child", as if
the child had merely not been created yet.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds, _lintkinds

SERVICE = {
    "apiVersion": "v1",
    "kind": "Service",
    "metadata": {"name": "w"},
    "spec": {"clusterIP": "10.0.0.7"},
}


def test_rendering_says_children_by_id_is_for_status_rules_even_with_the_child_observed() -> None:
    template = _kinds.configmap("  ip: '{{ children.service.spec.clusterIP }}'\n")

    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [SERVICE])

    assert (caught.value.line, caught.value.field) == (6, "children.service")
    assert "`children.<id>` is for status rules" in caught.value.message
    assert "child('Service', 'my-svc')" in caught.value.message
    assert "not set in the observed child" not in caught.value.message


def test_lint_says_children_by_id_is_for_status_rules_in_a_branch_no_example_takes(tmp_path: Path) -> None:
    template = _lintkinds.configmap(
        "{% if spec.ports is defined %}\n  ip: '{{ children['redis-leader'].spec.clusterIP }}'\n{% endif %}\n"
    )

    file, [finding] = _lintkinds.lint_template(tmp_path, template, "child-id-in-template")

    assert (finding.file, finding.line, finding.severity) == (
        file,
        _lintkinds.line_of(template, "redis-leader"),
        "error",
    )
    assert finding.message.startswith("children.redis-leader: `children.<id>` is for status rules")
