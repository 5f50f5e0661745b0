"""`random_string(length, seed)` is the same string for the same seed under the same key, in any
process, made of lower-case letters and digits so that it is valid in a name."""

from __future__ import annotations

import re

from engine.core.model.language.library import random_string
from tests.unit._library import render_data, rule


def test_the_same_seed_gives_the_same_string() -> None:
    data = render_data(
        "  a: {{ random_string(12, metadata.uid) }}\n  b: {{ random_string(12, 'uid-1') }}\n", {}
    )
    assert data["a"] == data["b"] == rule("random_string(12, 'uid-1')", {})


def test_the_string_is_pinned_for_its_seed() -> None:
    # BLAKE2b and SHAKE-256 are standards: under the offline key, this is the string in every
    # process and every Python.
    assert random_string(16, "abc") == "uayfcrkopo64xs69"


def test_other_seeds_give_other_strings_of_letters_and_digits() -> None:
    made = {random_string(24, f"seed-{n}") for n in range(200)}
    assert len(made) == 200
    assert all(re.fullmatch(r"[a-z0-9]{24}", s) for s in made)
    assert len(set("".join(made))) == 36  # every character is drawn
