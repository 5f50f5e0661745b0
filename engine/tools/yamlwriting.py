"""Writing JSON data as YAML: ``stencil render``'s output, byte for byte what libyaml's safe dumper writes.

libyaml's emitter is C, but PyYAML walks the data in Python twice before libyaml sees it (a
representer builds a node tree, then libyaml is fed events made from the nodes, and the resolver
is asked of every scalar whether its text would read back as another type): some 100 µs a child,
most of what ``stencil render`` of a few thousand CRs costs.  For JSON data the layout itself
is fixed (block style, two spaces a level, a sequence inside a mapping not indented, an empty
collection as ``{}`` or ``[]``); only a scalar's text needs libyaml's judgment, and that text
depends on the scalar alone while it stays on one line.  So ``dump_all`` lays each document out
line by line and asks libyaml (``_JsonDumper``) for the text of each distinct scalar once; a name
made of letters, digits and ``-._/`` that the resolver reads back as a string is written as it is,
as libyaml writes it.  A document holding anything whose text would depend on where it stands
(a string libyaml would break over lines or that holds a line break, a key too long for
``key: value``, a value that is not JSON data) is handed to libyaml whole, so the output is
libyaml's in every case.  ``tests/unit/tools/test_yaml_written_is_what_libyamls_safe_dumper_writes.py``
holds it to that, on every shipped kind's children and on generated documents.
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode, SequenceNode

_TAG = "tag:yaml.org,2002:"


class _JsonDumper(yaml.CSafeDumper):
    """libyaml's safe dumper with a representer for JSON data: the text ``yaml.CSafeDumper`` writes
    (keys in their order), in some 70 % of its time.

    The safe representer looks each value's type up along its MRO and keeps every collection it
    has seen, to write a second sight of it as an alias; libyaml asks the resolver twice a scalar
    whether its text would read back as another type.  Here the JSON types are told apart by
    their exact type, nothing is kept (so no anchor is ever written, which ``StrictLoader`` would
    refuse), and the resolver's answers are remembered per text (manifests repeat their keys).
    Anything else (a float, a subclass) goes to the safe representer as before.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._tags: dict[tuple[str, Any], str] = {}

    def represent_data(self, data: Any) -> yaml.Node:
        kind = type(data)
        if kind is str:
            return ScalarNode(_TAG + "str", data)
        if kind is dict:
            pairs = [(self.represent_data(key), self.represent_data(value)) for key, value in data.items()]
            return MappingNode(_TAG + "map", pairs, flow_style=self.default_flow_style)
        if kind is list:
            items = [self.represent_data(item) for item in data]
            return SequenceNode(_TAG + "seq", items, flow_style=self.default_flow_style)
        if kind is bool:
            return ScalarNode(_TAG + "bool", "true" if data else "false")
        if kind is int:
            return ScalarNode(_TAG + "int", str(data))
        if data is None:
            return ScalarNode(_TAG + "null", "null")
        return super().represent_data(data)

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is not ScalarNode:
            return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        key = (value, implicit)
        tag = self._tags.get(key)
        if tag is None:
            tag = self._tags[key] = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        return tag


def _libyaml(documents: list[Any]) -> str:
    return yaml.dump_all(documents, Dumper=_JsonDumper, sort_keys=False, allow_unicode=True)


# libyaml's line width: a scalar with spaces is broken at one once its line passes this column.
_WIDTH = 80
# The longest key, in UTF-8 bytes, libyaml writes as ``key: value`` (longer ones get ``? key``).
_SIMPLE_KEY_BYTES = 128
# A text libyaml writes plain, as it is, unless the resolver reads it back as another type.
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_./-]*")
_RESOLVER = yaml.resolver.Resolver()


def _plain_is_string(text: str) -> bool:
    """Whether ``text`` written plain reads back as a string (not ``true``, ``1``, ``null``...)."""
    return bool(_RESOLVER.resolve(ScalarNode, text, (True, False)) == _TAG + "str")  # type: ignore[no-untyped-call]


class _ByLibyaml(Exception):
    """This document is libyaml's to lay out: a scalar's text would depend on where it stands."""


class _Writer:
    """Lays documents out as libyaml does, each distinct scalar's text asked of libyaml once."""

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}  # a string's one-line text, or "" where it has none
        self._keys: dict[str, str] = {}  # the same for a key: "" also where it is too long
        self._lines: list[str] = []

    def document(self, document: dict[str, Any]) -> str:
        self._lines = []
        self._mapping(document, 0, "")
        return "".join(self._lines)

    def _mapping(self, mapping: dict[str, Any], indent: int, first: str) -> None:
        """``first`` is what stands before the first key on its line: the indent, or the ``- `` of
        the sequence item the mapping is (as long as the indent, so a line's width is its length)."""
        pad = " " * indent
        for key, value in mapping.items():
            head = f"{first}{self._keys.get(key) or self._key(key)}:"
            first = pad
            kind = type(value)
            if kind is dict:
                if value:
                    self._lines.append(head + "\n")
                    self._mapping(value, indent + 2, pad + "  ")
                else:
                    self._lines.append(head + " {}\n")
            elif kind is list:
                if value:
                    self._lines.append(head + "\n")
                    self._sequence(value, indent, pad)
                else:
                    self._lines.append(head + " []\n")
            else:
                self._lines.append(f"{head} {self._scalar(value, len(head) + 1)}\n")

    def _sequence(self, items: list[Any], indent: int, first: str) -> None:
        pad = " " * indent
        for item in items:
            head = first + "- "
            first = pad
            kind = type(item)
            if kind is dict and item:
                self._mapping(item, indent + 2, head)
            elif kind is list and item:
                self._sequence(item, indent + 2, head)
            elif kind is dict:
                self._lines.append(head + "{}\n")
            elif kind is list:
                self._lines.append(head + "[]\n")
            else:
                self._lines.append(f"{head}{self._scalar(item, indent + 2)}\n")

    def _scalar(self, value: Any, column: int) -> str:
        """``value``'s text, written from ``column`` on, if libyaml keeps it on that one line."""
        kind = type(value)
        if kind is str:
            text = self._text(value)
        elif kind is bool:
            return "true" if value else "false"
        elif kind is int:
            return str(value)
        elif value is None:
            return "null"
        elif kind is float:
            text = self._asked(value)  # not remembered: 0.0 and -0.0 are one key to a dict
        else:
            raise _ByLibyaml
        if " " in text and column + len(text) > _WIDTH:
            raise _ByLibyaml  # libyaml would break it at a space past the width
        return text

    def _key(self, key: Any) -> str:
        if type(key) is not str:
            raise _ByLibyaml
        # A key holding a line break (even one a double-quoted text escapes) is no `key: value`.
        simple = key.isprintable() and len(key.encode()) <= _SIMPLE_KEY_BYTES
        text = self._keys[key] = self._text(key) if simple else ""
        if not text:
            raise _ByLibyaml
        return text

    def _text(self, value: str) -> str:
        text = self._texts.get(value)
        if text is None:
            plain = _NAME.fullmatch(value) and _plain_is_string(value)
            text = self._texts[value] = value if plain else self._asked(value)
        if not text:
            raise _ByLibyaml
        return text

    @staticmethod
    def _asked(value: str | float) -> str:
        """libyaml's text for ``value`` alone, or "" if it is more than one printable line."""
        written = _libyaml([value])
        text = written.removesuffix("\n...\n") if written.endswith("\n...\n") else written.removesuffix("\n")
        return text if text.isprintable() else ""


def dump_all(documents: list[Any]) -> str:
    """``documents`` (JSON data) as one YAML stream, keys in their order: what
    ``yaml.dump_all(documents, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)`` writes
    (an object met twice is written twice, never as an alias)."""
    if not all(type(document) is dict for document in documents):
        return _libyaml(documents)
    writer = _Writer()
    parts: list[str] = []
    for document in documents:
        if not document:  # libyaml writes `{}` after the `---` that starts a document, if one does
            parts.append(" {}\n" if parts else "{}\n")
            continue
        try:
            text = writer.document(document)
        except _ByLibyaml:
            text = _libyaml([document])
        parts.append("\n" + text if parts else text)
    return "---".join(parts)


class _BlockDumper(yaml.SafeDumper):
    """Each string of more than one line as a literal block, as a person writes files into YAML."""


def _block_text(dumper: yaml.SafeDumper, text: str) -> yaml.Node:
    return dumper.represent_scalar(_TAG + "str", text, style="|" if "\n" in text else None)


_BlockDumper.add_representer(str, _block_text)


def dump_blocks(documents: list[Any]) -> str:
    """``documents`` as one YAML stream for a person to read: keys in their order, lines up to 120
    characters, and each string of several lines (a file in a ConfigMap, a script) a literal block."""
    return yaml.dump_all(documents, Dumper=_BlockDumper, sort_keys=False, width=120)
