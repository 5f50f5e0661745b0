"""The library: functions a real kind needs, the same in templates and in status rules.

kro's CEL has a library beyond the language (``json.unmarshal``, ``quantity``, ``hash.sha256``,
``random.seededString``...); these are Stencil's, as Jinja filters and functions:

* ``text | fromjson`` and ``text | fromyaml``: the data a JSON or YAML text holds, read by the
  rules every YAML file is read with (``yamlrules.StrictLoader``: libyaml's safe loader, JSON data
  only, no aliases, at most ``MAX_DEPTH`` deep; JSON likewise: no duplicate keys, integers within
  int64, no NaN).  What they return is a value like any other a template prints: it becomes a
  token, so a tenant's text parsed here lands where the ``{{ }}`` is and nowhere else.
* ``text | quantity`` (or ``quantity(text)``): a Kubernetes quantity, a value that compares by
  amount (``'500Mi' | quantity < '1Gi' | quantity``) and prints in the API server's canonical
  form (``'1024Mi' | quantity`` prints ``1Gi``).
* ``x | digest('sha256')``: base64 of a digest's bytes, as kro's ``base64.encode(hash.sha256(x))``.
* ``random_string(length, seed)``: a string of lower-case letters and digits, valid in a name, that
  its seed and the engine's key decide (``seedkeys``): stable for one seed, and computable only
  by whoever holds the key.
* ``x | shorthash(8)``: the first hex digits of the SHA-256 of ``x``, stable across processes and
  Python versions (``hash()`` is neither).

A value that is not a string is read as its canonical JSON (keys sorted, no spaces), as the
templates' ``sha256`` does.  Every function charges the running budget (``budgets.current``)
before it builds: parsing by the size of its text (YAML costs about a hundred times what JSON
costs a character, and libyaml cannot be interrupted once it composes, so it is charged
``YAML_COST`` a character and the clock is read at every node it constructs), a random string by
its length.  A malformed argument is a ``ValueError`` naming the function, which templates and
rules report at their line.
"""

from __future__ import annotations

import base64
import decimal
import functools
import hashlib
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml
from jinja2.runtime import Undefined

from engine.core.model import budgets
from engine.core.model.language import seedkeys
from engine.core.model.language.yamlrules import INT64_MAX, INT64_MIN, MAX_DEPTH, StrictLoader

# -- values as text ---------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """``value`` as JSON data: any mapping a dict, any sequence but a string a list, a quantity its text."""
    if isinstance(value, Quantity):
        return str(value)
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return [_plain(item) for item in value]
    return value


def _text(value: Any, what: str) -> str:
    """A string itself; anything else as canonical JSON, charged to the budget."""
    if isinstance(value, str):
        return str(value)
    text = json.dumps(_plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    budgets.current().charge(len(text), what)
    return text


def _string(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{what}: parses a string, not a {type(value).__name__}")
    return str(value)


# -- JSON and YAML ---------------------------------------------------------------------------

# YAML parses at some 15 µs a character at worst (a flow list of small numbers), JSON at 0.15:
# charged this many characters a character, a budget of 1 MiB parses 64 KiB of YAML at most.
YAML_COST = 16


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and mappings, found without recursion."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            depth += 1
            deepest = max(deepest, depth)
            stack.extend((child, depth) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, item in pairs:
        if key in found:
            raise ValueError(f"duplicate key {key!r}")
        found[key] = item
    return found


def _json_int(text: str) -> int:
    if len(text) > 20 or not INT64_MIN <= int(text) <= INT64_MAX:
        raise ValueError(f"{text[:24]} is beyond int64, the range the API server keeps integers exactly in")
    return int(text)


def _json_float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise ValueError(f"{text[:24]} is not a number JSON can hold")
    return number


def _json_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def fromjson(text: Any) -> Any:
    """The data the JSON ``text`` holds: ``spec.config | fromjson``."""
    text = _string(text, "fromjson")
    budget = budgets.current()
    budget.charge(len(text), "fromjson")
    try:
        data = json.loads(
            text,
            object_pairs_hook=_json_object,
            parse_int=_json_int,
            parse_float=_json_float,
            parse_constant=_json_constant,
        )
    except RecursionError:
        raise ValueError(f"fromjson: the text nests more than {MAX_DEPTH} levels deep") from None
    except ValueError as error:
        raise ValueError(f"fromjson: not JSON data: {error}") from None
    if _depth(data) > MAX_DEPTH:
        raise ValueError(f"fromjson: the text nests more than {MAX_DEPTH} levels deep")
    budget.tick()
    return data


class _Parsing(StrictLoader):
    """The strict loader, reading the clock at every node it constructs."""

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        budgets.current().tick()
        return super().construct_object(node, deep=deep)


def fromyaml(text: Any) -> Any:
    """The data the YAML ``text`` (one document) holds: ``spec.values | fromyaml``."""
    text = _string(text, "fromyaml")
    budget = budgets.current()
    budget.charge(len(text) * YAML_COST, "fromyaml")
    budget.tick()
    loader = _Parsing(text) if text.strip() else None
    try:
        return None if loader is None else loader.get_single_data()
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
        where = f" (line {mark.line + 1} of the text)" if mark is not None else ""
        problem = getattr(error, "problem", None) or str(error)
        raise ValueError(f"fromyaml: not YAML data{where}: {problem}") from None
    finally:
        if loader is not None:
            loader.dispose()


# -- quantities ------------------------------------------------------------------------------

# k8s.io/apimachinery's resource.Quantity: a number, then a binary or decimal suffix or an exponent.
_QUANTITY = re.compile(
    r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?"
)
_BINARY = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX = {exponent: suffix for suffix, exponent in _DECIMAL.items()}
_MAX_QUANTITY_CHARS = 64
_NANO = decimal.Decimal("1e-9")
_EXACT = decimal.Context(prec=60, traps=[decimal.Overflow, decimal.InvalidOperation])


@dataclass(frozen=True, eq=False)
class Quantity:
    """A Kubernetes quantity: an exact amount, and the form it prints in (binary, decimal or exponent).

    Two quantities compare by amount (``1Gi == 1024Mi``), and with a number; a string is not
    compared (``q < '2Gi'`` would compare text): parse it first, ``'2Gi' | quantity``.
    """

    amount: decimal.Decimal
    form: str  # "binary", "decimal" or "exponent", as the suffix it was written with

    def __str__(self) -> str:
        return _canonical(self.amount, self.form)

    def __repr__(self) -> str:
        return f"quantity({str(self)!r})"

    def __hash__(self) -> int:
        return hash(self.amount)

    def __int__(self) -> int:
        """The amount rounded up to a whole number, as the API server's ``Value()``."""
        return int(self.amount.to_integral_value(rounding=decimal.ROUND_CEILING))

    def __float__(self) -> float:
        return float(self.amount)

    def _other(self, other: object) -> decimal.Decimal | None:
        if isinstance(other, Quantity):
            return other.amount
        if isinstance(other, str):
            raise TypeError(f"compare a quantity with a quantity: write {other!r} | quantity")
        if isinstance(other, int | float) and not isinstance(other, bool):
            return decimal.Decimal(other)
        return None

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return NotImplemented
        amount = self._other(other)
        return NotImplemented if amount is None else self.amount == amount

    def __lt__(self, other: object) -> bool:
        amount = self._other(other)
        return NotImplemented if amount is None else self.amount < amount

    def __le__(self, other: object) -> bool:
        amount = self._other(other)
        return NotImplemented if amount is None else self.amount <= amount

    def __gt__(self, other: object) -> bool:
        amount = self._other(other)
        return NotImplemented if amount is None else self.amount > amount

    def __ge__(self, other: object) -> bool:
        amount = self._other(other)
        return NotImplemented if amount is None else self.amount >= amount


def quantity(value: Any) -> Quantity:
    """``value`` as a Kubernetes quantity (``'500Mi'``, ``'0.5'``, ``'1e3'``, or a number)."""
    if isinstance(value, Quantity):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = format(decimal.Decimal(value), "f") if isinstance(value, int) else repr(value)
    text = _string(value, "quantity")
    found = _QUANTITY.fullmatch(text) if len(text) <= _MAX_QUANTITY_CHARS else None
    if found is None:
        raise ValueError(
            f"quantity: {text[:_MAX_QUANTITY_CHARS]!r} is not a Kubernetes quantity (e.g. 500Mi, 0.5, 2)"
        )
    number, suffix = found.group(1), found.group(2) or ""
    try:
        amount = decimal.Decimal(number)
        if suffix in _DECIMAL:  # "" among them: a bare number is decimal
            amount, form = _EXACT.scaleb(amount, _DECIMAL[suffix]), "decimal"
        elif suffix in _BINARY:
            amount, form = _EXACT.multiply(amount, 1024 ** _BINARY.index(suffix)), "binary"
        else:
            amount, form = _EXACT.scaleb(amount, int(suffix[1:])), "exponent"
    except (decimal.DecimalException, ValueError):
        amount, form = decimal.Decimal(INT64_MAX + 1), "decimal"
    if abs(amount) > INT64_MAX:
        raise ValueError(f"quantity: {text!r} is beyond what the API server keeps (2^63 - 1)")
    return Quantity(amount, form)


def _canonical(amount: decimal.Decimal, form: str) -> str:
    """``amount`` as the API server writes it: rounded up to a nano, then the largest suffix that
    keeps the number whole (``1536Mi`` is ``1.5Gi`` written ``1536Mi``; ``1.5`` is ``1500m``)."""
    amount = amount.quantize(_NANO, rounding=decimal.ROUND_UP, context=_EXACT)
    if form == "binary" and amount == amount.to_integral_value() and abs(amount) >= 1024:
        whole, power = int(amount), 0
        while power < len(_BINARY) - 1 and whole % 1024 == 0:
            whole, power = whole // 1024, power + 1
        return f"{whole}{_BINARY[power]}"
    nanos, exponent = int(amount.scaleb(9, context=_EXACT)), -9
    if nanos == 0:
        return "0"
    while nanos % 10 == 0:
        nanos, exponent = nanos // 10, exponent + 1
    nanos, exponent = nanos * 10 ** (exponent % 3), exponent - exponent % 3
    if form == "exponent":
        return f"{nanos}e{exponent}" if exponent else str(nanos)
    if exponent > 18:
        nanos, exponent = nanos * 10 ** (exponent - 18), 18
    return f"{nanos}{_DECIMAL_SUFFIX[exponent]}"


# -- digests, hashes and seeded strings --------------------------------------------------------


def _fnv64a(data: bytes) -> bytes:
    """FNV-1a, 64 bits, big-endian (Go's ``hash/fnv`` as kro's ``hash.fnv64a`` uses it)."""
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value.to_bytes(8, "big")


_DIGESTS: dict[str, Callable[[bytes], bytes]] = {
    "sha256": lambda data: hashlib.sha256(data).digest(),
    "sha512": lambda data: hashlib.sha512(data).digest(),
    "sha1": lambda data: hashlib.sha1(data, usedforsecurity=False).digest(),
    "md5": lambda data: hashlib.md5(data, usedforsecurity=False).digest(),
    "fnv64a": _fnv64a,
}


def digest(value: Any, algorithm: str = "sha256") -> str:
    """base64 of the ``algorithm`` digest of ``value``'s UTF-8 bytes: ``spec.config | digest('sha256')``."""
    function = _DIGESTS.get(algorithm) if isinstance(algorithm, str) else None
    if function is None:
        raise ValueError(f"digest: no algorithm {algorithm!r} (one of {', '.join(_DIGESTS)})")
    return base64.b64encode(function(_text(value, "digest").encode())).decode("ascii")


_SHORTHASH_MAX = 64  # the hex digits of a SHA-256


def _length(length: Any, what: str, most: int | None = None) -> int:
    if not isinstance(length, int) or isinstance(length, bool) or length < 1 or (most and length > most):
        within = f"from 1 to {most}" if most else "of at least 1"
        raise ValueError(f"{what}: the length must be a whole number {within}, not {length!r}")
    return length


def shorthash(value: Any, length: int = 8) -> str:
    """The first ``length`` hex digits of the SHA-256 of ``value``: ``name | shorthash``."""
    length = _length(length, "shorthash", _SHORTHASH_MAX)
    return hashlib.sha256(_text(value, "shorthash").encode()).hexdigest()[:length]


_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"
_UNBIASED = 256 - 256 % len(_ALPHABET)  # bytes at or above this would favour the first letters


def random_string(length: int, seed: Any) -> str:
    """``length`` lower-case letters and digits that ``seed`` and the engine's key decide:
    ``random_string(16, metadata.uid)``.

    The seed is hashed by BLAKE2b under the key of the render (``seedkeys.current``), so a
    reader who knows the seed, as every reader of the parent does, still cannot compute the
    value; SHAKE-256 of that keyed hash gives as many bytes as wanted, dropping the few that
    would make some characters likelier.  Both are standards: the same in every process.
    """
    length = _length(length, "random_string")
    budgets.current().charge(length, "random_string")
    keyed = hashlib.blake2b(_text(seed, "random_string").encode(), key=seedkeys.current())
    source = hashlib.shake_256(keyed.digest())
    drawn: list[str] = []
    wanted = length + length // 8 + 16
    while len(drawn) < length:
        stream = source.digest(wanted)
        drawn = [_ALPHABET[byte % len(_ALPHABET)] for byte in stream if byte < _UNBIASED][:length]
        wanted *= 2
    return "".join(drawn)


def flatten(value: Any) -> list[Any]:
    """The items of the lists ``value`` holds, in order, one level deep: what ``sum`` would give of
    lists (which it refuses, since adding each to the total copies it), in one pass."""
    if isinstance(value, str | Mapping) or not isinstance(value, Iterable):
        raise TypeError(f"flatten takes a list of lists, not {type(value).__name__}")
    lists = list(value)
    if not all(isinstance(item, Sequence) and not isinstance(item, str) for item in lists):
        raise TypeError("flatten takes a list of lists: an item is not a list")
    budgets.current().charge(sum(len(item) for item in lists), "flatten")
    return [item for inner in lists for item in inner]


# -- what templates and rules are given ------------------------------------------------------


def _missing_passes(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function``, given back an undefined argument as its result: a rule reads missing data
    as none (``child(...).data | fromyaml``), a template says which field is not set."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        for value in (*args, *kwargs.values()):
            if isinstance(value, Undefined):
                return value
        return function(*args, **kwargs)

    return call


# Filters: ``x | name(...)``; functions: ``name(...)``.  ``quantity``, ``digest`` and
# ``shorthash`` are both, as kro writes ``quantity("1Gi")``.
FILTERS: dict[str, Callable[..., Any]] = {
    name: _missing_passes(function)
    for name, function in (
        ("fromjson", fromjson),
        ("fromyaml", fromyaml),
        ("quantity", quantity),
        ("digest", digest),
        ("shorthash", shorthash),
        ("flatten", flatten),
    )
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: FILTERS[name] for name in ("quantity", "digest", "shorthash")},
    "random_string": _missing_passes(random_string),
}


def data(value: Any) -> Any:
    """``value`` as it goes into a manifest or a status: a quantity as its canonical text."""
    return str(value) if isinstance(value, Quantity) else value
