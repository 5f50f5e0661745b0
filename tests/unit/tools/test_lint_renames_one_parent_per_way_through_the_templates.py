"""Thousands of CRs given to ``stencil lint -f`` beside the examples are not each rendered again
under longer names: one parent per way through the templates is.  A CR that takes a branch no
parent before it took is renamed too, so what a long name breaks in that branch is still found."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.offline.linting import Finding, long_names
from engine.tools import linter
from tests.unit._lintkinds import API_VERSION, KIND, kind_folder, line_of

# The label made from the parent's name is only written for more than one replica; the example
# (one replica, by the CRD's default) does not take that branch.
TEMPLATE = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: config
{% if spec.replicas > 1 %}
  labels:
    app: '{{ name }}'
{% endif %}
"""


def web(name: str, replicas: int) -> str:
    spec = f"spec:\n  replicas: {replicas}\n"
    return f"apiVersion: {API_VERSION}\nkind: {KIND}\nmetadata:\n  name: {name}\n{spec}"


def lint_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replicas: list[int]
) -> tuple[Path, list[Finding], set[str]]:
    """The kind folder, the findings of linting it with one CR for each of ``replicas``, and the
    CRs that were rendered under longer names."""
    folder = kind_folder(tmp_path, {"cm.yaml": TEMPLATE})
    crs = tmp_path / "crs.yaml"
    crs.write_text("---\n".join(web(f"web-{i}", n) for i, n in enumerate(replicas)))
    renamed: set[str] = set()
    rename = long_names._renamed

    def counted(kind, example, *args):  # type: ignore[no-untyped-def]
        renamed.add(example[1]["metadata"]["name"])
        return rename(kind, example, *args)

    monkeypatch.setattr(long_names, "_renamed", counted)
    return folder, linter.lint([folder], files=[crs]), renamed


def test_crs_on_the_examples_way_are_not_renamed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _, findings, renamed = lint_with(tmp_path, monkeypatch, [1] * 200)

    assert renamed == {"small"}  # the example only
    assert [f for f in findings if f.check == long_names.LONG_NAME] == []


def test_a_cr_on_a_new_way_is_renamed_and_its_overflow_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, findings, renamed = lint_with(tmp_path, monkeypatch, [1] * 100 + [3] + [2] * 100)

    assert renamed == {"small", "web-100"}  # the example, and the first CR that writes the label
    assert [(f.file, f.line, f.severity, f.check) for f in findings] == [
        (str(folder / "cm.yaml"), line_of(TEMPLATE, "app:"), "warning", long_names.LONG_NAME)
    ]
    assert "63" in findings[0].message
