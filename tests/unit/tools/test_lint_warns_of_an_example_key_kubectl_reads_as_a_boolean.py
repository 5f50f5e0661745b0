"""``stencil lint`` warns, at its line, of an unquoted ``y``/``Y``/``n``/``N`` key in an example or a CR
given with ``-f``, which kubectl would send as ``"true"`` or ``"false"`` and ``stencil render`` refuses;
the rest of the example is linted as written."""

from __future__ import annotations

from pathlib import Path

from engine.tools import linter
from tests.unit._lintkinds import EXAMPLE, configmap, kind_folder, line_of

WITH_KEY = EXAMPLE.replace("  name: small\n", "  name: small\n  labels:\n    n: 'no'\n")


def test_an_example_key_n_is_a_warning_at_its_line(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  a: b\n")}, examples={"small.yaml": WITH_KEY})

    findings = linter.lint([folder])

    example = str(folder / "examples" / "small.yaml")
    assert [(f.file, f.line, f.severity, f.check) for f in findings] == [
        (example, line_of(WITH_KEY, "n: 'no'"), "warning", linter.KUBECTL_KEY)
    ]
    assert findings[0].message.startswith("metadata.labels.n: kubectl reads the unquoted key n as")


def test_a_key_in_a_cr_given_with_f_is_a_warning_too(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  a: b\n")})
    crs = tmp_path / "crs.yaml"
    crs.write_text(WITH_KEY.replace("small", "other"))

    findings = linter.lint([folder], files=[crs])

    assert [(f.file, f.severity, f.check) for f in findings] == [(str(crs), "warning", linter.KUBECTL_KEY)]
