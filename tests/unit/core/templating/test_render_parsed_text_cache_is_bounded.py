"""The parsed texts kept for reuse are bounded by their characters, whatever a CR makes templates render."""

from __future__ import annotations

from engine.core.templating import substitution

MAX_CHARS = 1_000


def test_the_kept_texts_never_exceed_the_bound_and_the_newest_is_kept() -> None:
    kept = substitution._Skeletons(MAX_CHARS)
    skeleton = substitution._Skeleton(())
    keys = [(f"text {number:04} ".ljust(40, "."), "0z tail") for number in range(200)]
    for key in keys:
        kept.keep(key, skeleton)
        assert sum(len(part) for held in kept._kept for part in held) <= MAX_CHARS
        assert kept.get(key) is skeleton
    assert kept.get(keys[0]) is None


def test_a_text_too_large_to_keep_is_not_kept() -> None:
    kept = substitution._Skeletons(MAX_CHARS)
    key = ("x" * MAX_CHARS,)
    kept.keep(key, substitution._Skeleton(()))
    assert kept.get(key) is None
