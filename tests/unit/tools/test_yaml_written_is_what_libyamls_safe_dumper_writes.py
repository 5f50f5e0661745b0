"""`yamlwriting.dump_all` (what `stencil render` prints) writes, byte for byte, what PyYAML's
libyaml safe dumper writes: for every shipped kind's rendered examples, for the scalars whose
quoting decides what they read back as, for keys and strings at the lengths where libyaml changes
how it lays them out, and for generated documents; and it never writes an anchor, which Stencil's
own reader (`StrictLoader`) refuses."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core.model import errors, kinds
from engine.core.model.language import documents, yamlrules
from engine.core.offline import admission
from engine.core.templating import rendering
from engine.tools import yamlwriting
from tests.unit import _jsondata

ROOT = Path(__file__).resolve().parents[3]

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
    loaded, _ = kinds.load_kinds(ROOT / "templates")
    crds = admission.OfflineCrds.read(ROOT / "crds", loaded.values())
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
    written = yamlwriting.dump_all(objects)
    assert written == _as_pyyaml_writes(objects)
    assert list(yaml.load_all(written, Loader=yamlrules.StrictLoader)) == objects


@pytest.mark.parametrize("text", TRICKY, ids=range(len(TRICKY)))
def test_a_scalar_is_quoted_as_pyyaml_quotes_it_and_reads_back_as_itself(text: str) -> None:
    document = {text or "empty": text, "in a list": [text, {"key": text}], text or "again": {"x": [text]}}
    written = yamlwriting.dump_all([document])
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
    written = yamlwriting.dump_all([document, [], {}, "scalar", None])
    assert written == _as_pyyaml_writes([document, [], {}, "scalar", None])
    assert list(yaml.load_all(written, Loader=yamlrules.StrictLoader)) == [document, [], {}, "scalar", None]


def test_an_object_met_twice_is_written_twice_not_as_an_alias_stencil_would_refuse() -> None:
    labels = {"app": "web"}
    child = {"metadata": {"labels": labels}, "spec": {"selector": {"matchLabels": labels}}}
    assert "&id001" in _as_pyyaml_writes([child])  # what the safe dumper would have written
    written = yamlwriting.dump_all([child])
    assert "&" not in written and "*" not in written
    assert yaml.load(written, Loader=yamlrules.StrictLoader) == child


@pytest.mark.parametrize("length", [70, 78, 79, 80, 81, 82, 83, 84, 85, 120, 127, 128, 129, 130])
def test_keys_and_spaced_strings_around_libyamls_limits_are_laid_out_as_it_lays_them(length: int) -> None:
    spaced = ("ab " * length)[: length - 1].rstrip().ljust(length - 1, "z")
    each = [
        {"k" * length: "v"},
        {"é" * (length // 2): 1},
        {"key": spaced},
        {"nested": {"deeper": [spaced, {"k" * (length - 10): spaced}]}},
        {spaced: 1},
        {"a": [[spaced]]},
    ]
    for document in each:
        assert yamlwriting.dump_all([document]) == _as_pyyaml_writes([document])


def test_a_document_that_is_not_json_data_is_written_as_pyyaml_writes_it_or_refused_as_it_refuses() -> None:
    document = {"a": 1.5, 1: "int key", None: "null key", False: "bool key", 2.5: [0.1]}
    assert yamlwriting.dump_all([{"ok": 1}, document]) == _as_pyyaml_writes([{"ok": 1}, document])

    class Name(str):
        pass

    def outcome(dump: Any, objects: list[Any]) -> str:
        try:
            return str(dump(objects))
        except yaml.YAMLError as error:
            return repr(error)

    for odd in (Name("x"), (1, 2), {1, 2}, object()):
        objects = [{"a": 1}, {"a": odd}]
        assert outcome(yamlwriting.dump_all, objects) == outcome(_as_pyyaml_writes, objects)


# Strings that a manifest holds (names, images, paths) and strings that libyaml quotes, breaks or
# escapes; keys drawn from both, so a key that would be `? key` or quoted is met too.
_WORDS = st.sampled_from([*TRICKY, "web-0", "nginx:1.25", "app.kubernetes.io/name", "v1", "8080", "a.b"])
_STRINGS = st.one_of(_WORDS, st.text(max_size=90), st.from_regex(r"[a-z0-9 .:/-]{0,100}", fullmatch=True))
_JSON = _jsondata.data(_STRINGS, _STRINGS, leaves=30)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.dictionaries(_STRINGS, _JSON, max_size=6), max_size=3))
def test_generated_documents_are_written_as_pyyaml_writes_them(objects: list[Any]) -> None:
    assert yamlwriting.dump_all(objects) == _as_pyyaml_writes(objects)
