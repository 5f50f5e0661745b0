"""`random_string` draws under a key: the same seed and key give the same string, another key
another string, and knowing the seed (a parent's uid, which every reader sees) is not enough to
compute it."""

from __future__ import annotations

import hashlib

from engine.core.model.language import seedkeys
from engine.core.model.language.library import random_string
from tests.unit._library import render_data

UID = "6f1c2a9e-0d4b-4c51-9a3e-2b7d8e1f0a42"
KEY = bytes(range(32))
OTHER_KEY = bytes(range(1, 33))
ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def test_the_same_seed_under_the_same_key_gives_the_same_string() -> None:
    with seedkeys.keyed(KEY):
        first = random_string(24, UID)
    with seedkeys.keyed(KEY):
        assert random_string(24, UID) == first


def test_another_key_gives_another_string_for_the_same_seed() -> None:
    with seedkeys.keyed(KEY):
        mine = random_string(24, UID)
    with seedkeys.keyed(OTHER_KEY):
        theirs = random_string(24, UID)
    assert mine != theirs
    assert mine != random_string(24, UID)  # nor the offline key's


def _from_seed_alone(length: int, seed: str) -> set[str]:
    """What a reader who knows only the seed can compute: the seed's own hashes, drawn as the
    alphabet is drawn (unbiased) and as a plain modulo."""
    made = set()
    for stream in (
        hashlib.shake_256(seed.encode()).digest(4 * length),
        hashlib.sha256(seed.encode()).digest(),
        hashlib.blake2b(seed.encode()).digest(),
    ):
        made.add("".join(ALPHABET[b % 36] for b in stream if b < 252)[:length])
        made.add("".join(ALPHABET[b % 36] for b in stream)[:length])
    return made


def test_the_string_is_not_the_unkeyed_hash_of_its_seed() -> None:
    with seedkeys.keyed(KEY):
        drawn = random_string(16, UID)
    assert drawn not in _from_seed_alone(16, UID)
    assert random_string(16, UID) not in _from_seed_alone(16, UID)


def test_a_template_renders_under_the_key_of_its_render() -> None:
    template = "  a: {{ random_string(12, metadata.uid) }}\n"
    offline = render_data(template, {})["a"]
    with seedkeys.keyed(KEY):
        live = render_data(template, {})["a"]
    assert live != offline
    assert render_data(template, {})["a"] == offline  # the key was the render's only
