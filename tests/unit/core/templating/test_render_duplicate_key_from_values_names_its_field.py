"""Keys that collide once values are filled in are reported at the field that holds them, however deep,
and whether the rendered text was parsed for this render or reused from an earlier one."""

from __future__ import annotations

import uuid

import pytest

from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from tests.unit import _kinds


def test_a_collision_inside_a_list_names_the_mapping_that_holds_it() -> None:
    data = f"  # {uuid.uuid4()}\n  items:\n    - {{}}\n    - app: fixed\n      {{{{ spec.key }}}}: from-cr\n"
    kind = _kinds.kind(_kinds.configmap(data))
    rendering.render(kind, _kinds.parent({"key": "tier"}), [])  # the same text, values aside, parses fine
    with pytest.raises(RenderError, match="duplicate key 'app'") as caught:
        rendering.render(kind, _kinds.parent({"key": "app"}), [])
    assert (caught.value.file, caught.value.field) == ("templates/web/t0.yaml", "data.items[1]")
