"""An include or import of a name that is neither a template nor a partial of the kind folder is an
error at the line of the include, in a template or a partial, and says what can be included;
``stencil lint`` says it in a branch no example takes too."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.core.model import kinds
from engine.core.model.errors import RenderError
from engine.core.templating import rendering
from engine.tools import linter
from tests.unit import _kinds, _lintkinds

TEMPLATE = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n{% include '_data.yaml' %}\n"


def test_an_include_of_an_unknown_name_in_a_template_says_what_can_be_included(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, template=TEMPLATE)
    (folder / "data.yaml.tmpl").write_text("  a: b\n")

    with pytest.raises(RenderError) as caught:
        rendering.render(kinds.load_kind(folder), _kinds.parent(), [])

    assert (caught.value.file, caught.value.line) == (str(folder / "cm.yaml"), 6)
    assert "'_data.yaml' is neither a template nor a partial of this kind folder" in caught.value.message
    assert "_*.yaml or _*.j2" in caught.value.message


def test_an_import_of_an_unknown_name_in_a_partial_is_at_the_partials_line(tmp_path: Path) -> None:
    folder = _kinds.kind_folder(tmp_path, template=TEMPLATE)
    (folder / "_data.yaml").write_text("{# the data #}\n{% from '_macros.j2' import a %}\n  a: '{{ a() }}'\n")

    with pytest.raises(RenderError) as caught:
        rendering.render(kinds.load_kind(folder), _kinds.parent(), [])

    assert (caught.value.file, caught.value.line) == (str(folder / "_data.yaml"), 2)
    assert "'_macros.j2' is neither a template nor a partial" in caught.value.message


def test_lint_finds_an_unknown_include_in_a_branch_no_example_takes(tmp_path: Path) -> None:
    template = _lintkinds.configmap(
        "{% if spec.replicas is defined %}\n{% include '_dat.yaml' %}\n{% endif %}\n"
    )
    folder = _lintkinds.kind_folder(tmp_path, {"cm.yaml": template, "_data.yaml": "  a: b\n"})

    [finding] = [f for f in linter.lint([folder]) if f.check == "unknown-include"]

    assert (finding.file, finding.line) == (
        str(folder / "cm.yaml"),
        _lintkinds.line_of(template, "_dat.yaml"),
    )
    assert finding.severity == "error"
    assert "'_dat.yaml' is neither a template nor a partial" in finding.message
