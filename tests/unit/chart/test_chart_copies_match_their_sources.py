"""The chart's copies of crds/ and of the CRDs the kinds write from their schema:, of the kind
folders and of the derived RBAC rules are what hack/sync-chart makes from the sources today: a CRD,
a schema or a template changed without re-running it fails here, before a release ships stale
copies."""

from __future__ import annotations

from pathlib import Path

import yaml

from engine.core.model import kinds
from engine.core.offline import rbac
from engine.core.offline.admission import OfflineCrds

ROOT = Path(__file__).resolve().parents[3]
CHART = ROOT / "charts" / "stencil"


def files_under(base: Path) -> dict[str, bytes]:
    if not base.is_dir():
        return {}
    return {str(p.relative_to(base)): p.read_bytes() for p in sorted(base.rglob("*")) if p.is_file()}


def test_chart_crds_are_the_top_level_crds_and_those_the_kinds_write() -> None:
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    written = {f"{name}.yaml": kind.crd for name, kind in loaded.items() if kind.crd is not None}
    chart = files_under(CHART / "crds")

    copied = {name: text for name, text in chart.items() if name not in written}
    assert copied == files_under(ROOT / "crds")
    assert {name: yaml.safe_load(chart[name]) for name in written if name in chart} == written


def test_chart_kind_folders_are_the_templates_without_examples() -> None:
    loaded, broken = kinds.load_kinds(ROOT / "templates")
    assert not broken
    expected = {
        f"{name}/{path.name}": path.read_bytes()
        for name, kind in loaded.items()
        for path in sorted(kind.directory.iterdir())
        if path.is_file()
    }

    assert files_under(CHART / "kinds") == expected


def test_chart_rules_file_holds_the_derived_rules() -> None:
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    expected = rbac.rules_by_kind(
        loaded.values(),
        rbac.offline_resources(ROOT / "crds", loaded.values()),
        OfflineCrds.read(ROOT / "crds", loaded.values()).defaulted,
    )

    written = yaml.load((CHART / "files" / "rules.yaml").read_text(), Loader=yaml.CSafeLoader)

    assert written == expected
