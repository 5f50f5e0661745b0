"""``bench.conversion --profile`` names each of py-spy's samples of the Stencil webhook by the first
of its categories that a frame of the sample is in: a sample inside Jinja's sandbox under a
mapping's expression is the expression's, JSON decoded for the conversion's annotation is the
annotation's and not the review's JSON, and HTTP, at the root of every sample, is what is left."""

from __future__ import annotations

from bench import conversion_profile

ROOT = "_bootstrap (threading.py:1002);handle (http/server.py:436);do_POST (bench/conversion_stencil.py:70)"
CONVERT = (
    f"{ROOT};answer (engine/core/webhook/review.py:60);convert (engine/core/webhook/review.py:120);"
    "Conversion.convert (engine/core/model/versioning/conversion.py:99)"
)
SAMPLES = f"""\
{CONVERT};_apply (engine/core/model/versioning/conversion.py:206);Expression.evaluate \
(engine/core/model/language/expressions.py:161);root (<template>:4);BoundedSandbox.getattr \
(engine/core/model/budgets/__init__.py:244) 5
{CONVERT};_kept (engine/core/model/versioning/conversion.py:300);loads (json/__init__.py:346);\
JSONDecoder.decode (json/decoder.py:337) 2
{ROOT};answer (engine/core/webhook/review.py:60);read (engine/core/webhook/review.py:70);\
loads (json/__init__.py:346) 2
{ROOT};send_response (http/server.py:500) 1
"""


def test_each_sample_goes_to_the_first_category_a_frame_of_it_is_in() -> None:
    found = [
        (conversion_profile.category(stack), count) for stack, count in conversion_profile.samples(SAMPLES)
    ]
    assert found == [
        ("Jinja expressions (computed mappings)", 5),
        ("the annotation (read, written)", 2),
        ("the review read (JSON decoded, checked)", 2),
        ("HTTP", 1),
    ]


def test_the_summary_gives_each_category_its_share() -> None:
    said = conversion_profile.summary(SAMPLES)
    assert "50.0%  Jinja expressions" in said
    assert "10.0%  HTTP" in said
