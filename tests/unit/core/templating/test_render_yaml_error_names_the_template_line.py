"""A YAML error in rendered text is reported at the template line that wrote it, not the rendered line.

Tags (``{% if %}`` spread over lines, ``{% for %}``) and the lines they add or
remove make the two differ; the message still quotes the rendered text, values
masked.
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds

BAD = "   gateway: {{ spec.secret }}"  # one space too many: not valid under `data:`
TEMPLATE = _kinds.configmap(
    "{% if spec.extra\n"
    "      and spec.extra.enabled %}\n"
    "  extra: yes\n"
    "  more: {{ spec.extra.enabled }}\n"
    "{% endif %}\n"
    "{% for port in spec.ports %}\n"
    "  port-{{ port }}: open\n"
    "{% endfor %}\n"
    "  cidr: {{ spec.secret }}\n"
    f"{BAD}\n"
)
LINE = TEMPLATE.splitlines().index(BAD) + 1


@pytest.mark.parametrize(
    "spec",
    [
        {"extra": {"enabled": True}, "ports": [80, 443, 8080], "secret": "hunter2"},
        {"extra": None, "ports": [], "secret": "hunter2"},
    ],
    ids=["branch-taken-and-three-iterations", "branch-skipped-and-no-iteration"],
)
def test_the_error_names_the_template_file_and_line(spec: dict[str, Any]) -> None:
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(TEMPLATE), _kinds.parent(spec), [])
    assert (caught.value.file, caught.value.line) == ("templates/web/t0.yaml", LINE)
    assert str(caught.value).startswith(
        f"templates/web/t0.yaml:{LINE}: the rendered output is not valid YAML"
    )


def test_the_message_quotes_the_rendered_line_with_the_value_masked() -> None:
    spec = {"extra": None, "ports": [80], "secret": "hunter2"}
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(TEMPLATE), _kinds.parent(spec), [])
    assert "'gateway: {{…}}'" in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_text_after_a_comment_keeps_its_own_line() -> None:
    # Jinja joins the text on both sides of a comment into one chunk of output.
    bad = "   b: 2"
    template = _kinds.configmap("  a: 1\n{# a comment\n   over two lines #}\n" + bad + "\n")
    with pytest.raises(RenderError) as caught:
        rendering.render(_kinds.kind(template), _kinds.parent(), [])
    assert caught.value.line == template.splitlines().index(bad) + 1


def test_text_from_an_included_template_is_placed_at_the_include() -> None:
    include = "{% include 'part.yaml' %}"
    template = _kinds.configmap(f"  a: 1\n{include}\n")
    part = "  b: 1\n   c: 2\n"
    kind = _kinds.kind(template, part, names=("t0.yaml", "part.yaml"))
    with pytest.raises(RenderError) as caught:
        rendering.render(kind, _kinds.parent(), [])
    assert (caught.value.file, caught.value.line) == (
        "templates/web/t0.yaml",
        template.splitlines().index(include) + 1,
    )
