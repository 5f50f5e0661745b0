"""docs/mistakes.md is what `stencil lint` prints today for each case of tests/mistakes:
`hack/mistakes-doc --check` fails when a change to lint or to the table left it stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_mistakes_doc_check_finds_the_section_up_to_date() -> None:
    checked = subprocess.run(
        [sys.executable, str(ROOT / "hack" / "mistakes-doc"), "--check"],
        capture_output=True,
        text=True,
        check=False,
    )

    assert (checked.returncode, checked.stderr) == (0, "")
