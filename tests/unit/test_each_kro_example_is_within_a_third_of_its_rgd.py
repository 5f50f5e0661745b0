"""Each kind under examples/kro, counted as docs/from-kro.md counts it (kind.yaml and its
templates), is as long as that page's table says and at most a third longer than the kro RGD it
ports; the table lists every one of them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KRO = ROOT / "examples" / "kro"
ROW = re.compile(r"^\| (?P<kind>[a-z]+) \| (?P<rgd>\d+) \| (?P<kind_lines>\d+) \|", re.MULTILINE)


def lines_of(kind: Path) -> int:
    return sum(len(path.read_text().splitlines()) for path in kind.glob("*.yaml"))


def test_each_kro_example_is_within_a_third_of_its_rgd() -> None:
    table = {
        m["kind"]: (int(m["rgd"]), int(m["kind_lines"]))
        for m in ROW.finditer((ROOT / "docs" / "from-kro.md").read_text())
    }

    assert sorted(table) == sorted(path.parent.name for path in KRO.glob("*/kind.yaml"))
    for kind, (rgd, stated) in table.items():
        assert (kind, lines_of(KRO / kind)) == (kind, stated)
        assert stated * 3 <= rgd * 4, f"{kind}: {stated} lines against kro's {rgd}"
