"""`digest` gives base64 of a digest's bytes, as kro's `base64.encode(hash.sha256(x))` does;
`sha256` stays the hex digest a checksum annotation uses."""

from __future__ import annotations

import base64
import hashlib
import json

import pytest

from engine.core.model.errors import KindError
from tests.unit._library import render_data, rule


def test_digest_is_base64_of_the_sha256_of_the_text() -> None:
    expected = base64.b64encode(hashlib.sha256(b"hello world").digest()).decode()
    assert expected == "uU0nuZNNPgilLlLX2n2r+sSE7+N6U4DukIj3rOLvzek="
    data = render_data(
        "  a: {{ spec.text | digest }}\n  b: {{ digest(spec.text, 'sha256') }}\n", {"text": "hello world"}
    )
    assert data == {"a": expected, "b": expected}


def test_digest_of_a_mapping_is_of_its_canonical_json() -> None:
    settings = {"b": [1, 2], "a": None}
    canonical = json.dumps(settings, sort_keys=True, separators=(",", ":")).encode()
    assert (
        rule("spec.settings | digest('md5')", {"settings": settings})
        == base64.b64encode(hashlib.md5(canonical).digest()).decode()
    )


def test_fnv64a_is_go_hash_fnv() -> None:
    # Go: fnv.New64a() of "hello world" sums to 0x779a65e7023cd2e7.
    assert (
        rule("'hello world' | digest('fnv64a')", {})
        == base64.b64encode(bytes.fromhex("779a65e7023cd2e7")).decode()
    )


def test_an_unknown_algorithm_is_named() -> None:
    with pytest.raises(KindError, match="no algorithm 'sha3'"):
        rule("'x' | digest('sha3')", {})
