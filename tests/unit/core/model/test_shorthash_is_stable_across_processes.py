"""`shorthash` is the start of a SHA-256: the same in every process, whatever its hash seed."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from engine.core.model.errors import KindError
from tests.unit._library import render_data, rule

ROOT = Path(__file__).resolve().parents[4]


def test_shorthash_is_the_start_of_the_sha256_hex_digest() -> None:
    expected = hashlib.sha256(b"my-app").hexdigest()
    data = render_data(
        "  a: {{ spec.name | shorthash }}\n  b: {{ shorthash(spec.name, 12) }}\n", {"name": "my-app"}
    )
    assert data == {"a": expected[:8], "b": expected[:12]}


def test_another_process_with_another_hash_seed_gives_the_same() -> None:
    code = "from engine.core.model.language.library import shorthash; print(shorthash({'a': ['x', 1]}, 10))"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in ("1", "2")
    }
    assert runs == {rule("{'a': ['x', 1]} | shorthash(10)", {})}


@pytest.mark.parametrize("length", [0, 65])
def test_a_length_beyond_the_digest_is_refused(length: int) -> None:
    with pytest.raises(KindError, match="shorthash: the length must be a whole number from 1 to 64"):
        rule(f"'x' | shorthash({length})", {})
