"""`namespace(...)` in a template is said to be the parent's namespace, a string hiding Jinja's namespace().

Rendering used to fail with "TypeError: 'str' object is not callable" and lint
with "not a function 'namespace' (did you mean the filter `| replace`?)":
neither says that a template's `namespace` is the parent's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds, _lintkinds

TEMPLATE = _kinds.configmap(
    "{% set gathered = namespace(total=0) %}\n"
    "{% for port in spec.ports %}{% set gathered.total = gathered.total + port %}{% endfor %}\n"
    "  total: '{{ gathered.total }}'\n"
)


def test_rendering_says_namespace_is_the_parents_namespace_at_the_line_that_calls_it() -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(TEMPLATE), _kinds.parent({"ports": [80, 443]}), [])

    assert (caught.value.file, caught.value.line) == ("templates/web/t0.yaml", 6)
    assert "`namespace` is the parent's namespace here (a string)" in caught.value.message
    assert "hides Jinja's namespace()" in caught.value.message
    assert "not callable" not in caught.value.message


def test_lint_says_namespace_is_the_parents_namespace_where_it_is_called(tmp_path: Path) -> None:
    template = _lintkinds.configmap(
        "{% if spec.image is defined %}\n  n: '{{ namespace(x=1) }}'\n{% endif %}\n"
    )

    file, [finding] = _lintkinds.lint_template(tmp_path, template, "unknown-function")

    assert (finding.file, finding.line) == (file, _lintkinds.line_of(template, "namespace("))
    assert "the parent's namespace here (a string), which hides Jinja's namespace()" in finding.message
    assert "replace" not in finding.message.split("e.g.")[0]
