"""`namespace` in a template is the parent's namespace, and called it is Jinja's namespace(): the
object a loop gathers into, which the name would otherwise hide."""

from __future__ import annotations

from pathlib import Path

from engine.core.templating import rendering
from tests.unit import _kinds, _lintkinds

GATHERED = (
    "{% set gathered = namespace(total=0, names=[]) %}\n"
    "{% for port in spec.ports %}{% set gathered.total = gathered.total + port %}"
    "{% set gathered.names = gathered.names + ['p' ~ port] %}{% endfor %}\n"
    "  total: '{{ gathered.total }}'\n"
    "  names: {{ gathered.names | join(',') }}\n"
    "  namespace: {{ namespace }}\n"
)


def test_a_loop_gathers_into_namespace_and_namespace_is_still_the_parents() -> None:
    [child] = rendering.render(
        _kinds.kind(_kinds.configmap(GATHERED)), _kinds.parent({"ports": [80, 443]}), []
    )

    assert {k: child["data"][k] for k in ("total", "names")} == {"total": "523", "names": "p80,p443"}
    assert child["data"]["namespace"] == _kinds.parent({})["metadata"]["namespace"]


def test_lint_takes_namespace_as_a_function(tmp_path: Path) -> None:
    template = _lintkinds.configmap(
        "{% if spec.image is defined %}\n  n: '{{ namespace(x=1).x }}'\n{% endif %}\n"
    )

    assert _lintkinds.lint_template(tmp_path, template, "unknown-function")[1] == []
