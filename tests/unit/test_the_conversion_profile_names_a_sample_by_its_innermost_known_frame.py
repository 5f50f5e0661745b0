"""``bench.conversion --profile`` sorts py-spy's samples of the Stencil webhook by the innermost
frame it knows: a sample inside Jinja's sandbox under a mapping's expression is the expression's,
one in ``copy`` called from the conversion is the copy's, not the conversion's."""

from __future__ import annotations

from bench import conversion_profile

SAMPLES = """\
_bootstrap (threading.py:1002);handle (http/server.py:436);do_POST (bench/conversion_stencil.py:70);\
answer (bench/conversion_stencil.py:45);Conversion.convert (engine/core/model/versioning/conversion.py:99);\
_apply (engine/core/model/versioning/conversion.py:206);Expression.evaluate \
(engine/core/model/language/expressions.py:161);root (<template>:4);BoundedSandbox.getattr \
(engine/core/model/budgets/__init__.py:244) 6
_bootstrap (threading.py:1002);handle (http/server.py:436);do_POST (bench/conversion_stencil.py:70);\
answer (bench/conversion_stencil.py:45);_map_up (engine/core/model/versioning/conversion.py:166);\
deepcopy (copy.py:146);_deepcopy_dict (copy.py:231) 3
_bootstrap (threading.py:1002);handle (http/server.py:436);do_POST (bench/conversion_stencil.py:70);\
decoded (bench/conversion_stencil.py:32) 1
"""


def test_each_sample_goes_to_the_innermost_frame_a_category_names() -> None:
    found = [
        (conversion_profile.category(stack), count) for stack, count in conversion_profile.samples(SAMPLES)
    ]
    assert found == [
        ("Jinja expressions (computed mappings)", 6),
        ("copy.deepcopy", 3),
        ("JSON decode (orjson)", 1),
    ]


def test_the_summary_gives_each_category_its_share() -> None:
    said = conversion_profile.summary(SAMPLES)
    assert "60.0%  Jinja expressions" in said
    assert "30.0%  copy.deepcopy" in said
