"""Template text in the shape of a value's token is text: only the render's own tokens stand for values."""

from __future__ import annotations

from engine.core.templating import rendering
from tests.unit import _kinds

# A token's shape (``stencilv<20 hex digits>x<index>z``) with a nonce no render draws on purpose.
LOOKALIKE = "stencilv0123456789abcdef0123x0z"


def test_a_lookalike_token_in_the_template_is_kept_as_written() -> None:
    data = f"  whole: {LOOKALIKE}\n  among: a-{LOOKALIKE}-{{{{ spec.v }}}}\n  {LOOKALIKE}: key\n"
    kind = _kinds.kind(_kinds.configmap(data))
    [child] = rendering.render(kind, _kinds.parent({"v": "value"}), [])
    assert child["data"] == {"whole": LOOKALIKE, "among": f"a-{LOOKALIKE}-value", LOOKALIKE: "key"}
