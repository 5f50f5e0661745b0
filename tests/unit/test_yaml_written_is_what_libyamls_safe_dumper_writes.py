"""`yamlrules.dump_all` (what `stencil render` prints) writes, byte for byte, what PyYAML's
libyaml safe dumper writes: for every shipped kind's rendered examples and for the scalars whose
quoting decides what they read back as; and it never writes an anchor, which Stencil's own reader
(`StrictLoader`) refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.core.model import documents, errors, kinds, yamlrules
from engine.core.offline import admission
from engine.core.templating import rendering

ROOT = Path(__file__).resolve().parents[2]

# Each is plain text to one reader and another type, or broken YAML, to another unless quoted.
TRICKY = [
    *["", " ", "yes", "No", "on", "OFF", "y", "n", "null", "Null", "~", "true", "False", "<<", "="],
    *["1", "-1", "+1", "1.0", "1_000", "0x1F", "0o17", "017", "0b101", "1e3", ".inf", "-.Inf", ".nan"],
    *["2026-11-28", "12:30:00", "1:20", "-", "- a", "? a", ": a", "a: b", "a #b", "#a", "a:", "[a]", "{a}"],
    *["'a'", '"a"', "@a", "`a", "%a", "!a", "&a", "*a", "|", ">", ",", "a,b", " lead", "trail ", "tab\t"],
    *["two\nlines", "ends with a newline\n", "\n", "crlf\r\n", "ünïcödé", "日本語", "emoji 🚀", "\u2028"],
    *["nginx:1.25", "http://a/b?c=d#e", "${VAR}", "{{ x }}", "a" * 200, "a " * 60],
]


def _rendered_examples() -> list[dict[str, Any]]:
    crds = admission.OfflineCrds.read(ROOT / "crds")
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    children: list[dict[str, Any]] = []
    for _, kind in sorted(loaded.items()):
        for example in kind.examples:
            for document in documents.Document.read_all(example, errors.StencilError):
                parent = crds.admit(document, kind, "default")
                if parent is not None:
                    parent["metadata"].setdefault("uid", "00000000-0000-0000-0000-000000000001")
                    rendered = rendering.render(kind, parent, [], is_namespaced=crds.is_namespaced)
                    children += [parent, *rendered]
    return children


def _as_pyyaml_writes(objects: list[Any]) -> str:
    return yaml.dump_all(objects, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)


def test_the_rendered_examples_of_every_shipped_kind_are_written_as_pyyaml_writes_them() -> None:
    objects = _rendered_examples()
    assert len(objects) > 20
    written = yamlrules.dump_all(objects)
    assert written == _as_pyyaml_writes(objects)
    assert list(yaml.load_all(written, Loader=yamlrules.StrictLoader)) == objects


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_a_scalar_is_quoted_as_pyyaml_quotes_it_and_reads_back_as_itself(text: str) -> None:
    document = {text or "empty": text, "in a list": [text, {"key": text}], text or "again": {"x": [text]}}
    written = yamlrules.dump_all([document])
    assert written == _as_pyyaml_writes([document])
    assert yaml.load(written, Loader=yamlrules.StrictLoader) == document


def test_every_json_type_and_empty_collections_are_written_as_pyyaml_writes_them() -> None:
    document = {
        "numbers": [0, -1, 2**63 - 1, -(2**63), 1.5, -0.0, 1e300, 2.0],
        "booleans": [True, False],
        "null": None,
        "empty": {"mapping": {}, "list": [], "string": ""},
        "nested": [[1, [2, [3]]], {"a": {"b": {"c": [{}]}}}],
    }
    written = yamlrules.dump_all([document, [], {}, "scalar", None])
    assert written == _as_pyyaml_writes([document, [], {}, "scalar", None])
    assert list(yaml.load_all(written, Loader=yamlrules.StrictLoader)) == [document, [], {}, "scalar", None]


def test_an_object_met_twice_is_written_twice_not_as_an_alias_stencil_would_refuse() -> None:
    labels = {"app": "web"}
    child = {"metadata": {"labels": labels}, "spec": {"selector": {"matchLabels": labels}}}
    assert "&id001" in _as_pyyaml_writes([child])  # what the safe dumper would have written
    written = yamlrules.dump_all([child])
    assert "&" not in written and "*" not in written
    assert yaml.load(written, Loader=yamlrules.StrictLoader) == child
