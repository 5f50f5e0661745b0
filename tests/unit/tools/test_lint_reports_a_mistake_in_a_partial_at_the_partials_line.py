"""``stencil lint`` reads every partial as it reads every template: an unknown filter or a parent
field the CRD has not, in a partial, is an error at the partial's own file and line."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit import _lintkinds

PARTIAL = (
    "{% macro image() %}{{ spec.image | uper }}{% endmacro %}\n"
    "{% macro size() %}{{ spec.replicsa }}{% endmacro %}\n"
)


def test_an_unknown_filter_and_field_in_a_partial_are_reported_where_the_partial_says_them(
    tmp_path: Path,
) -> None:
    template = "{% import '_macros.j2' as m %}\n" + _lintkinds.configmap("  image: '{{ m.image() }}'\n")
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": template, "_macros.j2": PARTIAL})

    found = {(f.check, f.file, f.line) for f in linter.lint([folder]) if f.severity == "error"}

    partial = str(folder / "_macros.j2")
    assert ("unknown-filter", partial, 1) in found
    assert ("unknown-field", partial, 2) in found
