"""A test or filter named by a string (select, reject, selectattr, rejectattr, map) is checked like one
written directly: a misspelt one is an error at the string's line and column, with a did-you-mean."""

from __future__ import annotations

from pathlib import Path

from engine.core.model.language.documents import Document
from engine.tools import linter
from tests.unit._lintkinds import configmap, kind_folder, line_of

# Behind an {% if %} no example takes, so only reading the template can find them.
MISSPELT = configmap(
    "{% if spec.replicas > 100 %}\n"
    '  a: \'{{ spec.ports | selectattr("port", "defind") | list | length }}\'\n'
    '  b: \'{{ spec.ports | rejectattr("port", "nonne") | list | length }}\'\n'
    "  c: '{{ [1, 2] | select(\"od\") | list | length }}'\n"
    "  d: '{{ [1, 2] | reject(\"evn\") | list | length }}'\n"
    "  e: '{{ [spec.image] | map(\"uper\") | join }}'\n"
    "{% endif %}\n"
    "  x: y\n"
)

# Jinja's own, and the engine's own filters (fromjson, b64encode...) and test (none) alike.
KNOWN = configmap(
    "{% if spec.replicas > 100 %}\n"
    '  a: \'{{ spec.ports | selectattr("port", "defined") | list | length }}\'\n'
    '  b: \'{{ spec.ports | rejectattr("port", "none") | list | length }}\'\n'
    '  c: \'{{ [1, 2] | select("odd") | reject("divisibleby", 3) | list | length }}\'\n'
    '  d: \'{{ [spec.image] | map("b64encode") | map("default", "x") | join }}\'\n'
    "  e: '{{ spec.ports | map(attribute=\"port\") | select | list | length }}'\n"
    "  f: '{{ [spec.image] | map(spec.image) | join }}'\n"
    "{% endif %}\n"
    "  x: y\n"
)


def _at(string: str) -> tuple[int, int]:
    """The line of ``string`` (quoted) in MISSPELT and the column of its opening quote."""
    line = line_of(MISSPELT, f'"{string}"')
    return line, MISSPELT.splitlines()[line - 1].index(f'"{string}"') + 1


def test_lint_reports_each_misspelt_name_at_its_string(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": MISSPELT})
    file = str(folder / "cm.yaml")

    findings = [f for f in linter.lint([folder]) if f.check in ("unknown-test", "unknown-filter")]

    assert [(f.file, f.line, f.column, f.severity, f.check, f.message) for f in findings] == [
        (
            file,
            *_at("defind"),
            "error",
            "unknown-test",
            "unknown test 'defind' given to selectattr (did you mean defined?)",
        ),
        (
            file,
            *_at("nonne"),
            "error",
            "unknown-test",
            "unknown test 'nonne' given to rejectattr (did you mean none?)",
        ),
        (file, *_at("od"), "error", "unknown-test", "unknown test 'od' given to select (did you mean odd?)"),
        (
            file,
            *_at("evn"),
            "error",
            "unknown-test",
            "unknown test 'evn' given to reject (did you mean even?)",
        ),
        (
            file,
            *_at("uper"),
            "error",
            "unknown-filter",
            "unknown filter 'uper' given to map (did you mean upper?)",
        ),
    ]


def test_lint_passes_known_names_attribute_maps_and_names_made_at_run_time(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": KNOWN})
    assert [str(f) for f in linter.lint([folder]) if f.check.startswith("unknown-")] == []


RULE = """status:
  fields:
    open: "spec.ports | selectattr('port', 'defind') | list | length"
"""


def test_lint_reports_a_misspelt_name_in_a_status_rule_at_its_line(tmp_path: Path) -> None:
    folder = kind_folder(tmp_path, {"cm.yaml": configmap("  x: y\n")}, kind_yaml_extra=RULE)
    line = Document.read(folder / "kind.yaml").line_of(("status", "fields", "open"))

    findings = [f for f in linter.lint([folder]) if f.check == "unknown-test"]

    assert [(f.file, f.line, f.message) for f in findings] == [
        (str(folder / "kind.yaml"), line, "unknown test 'defind' given to selectattr (did you mean defined?)")
    ]
