"""A CRD's CEL rules (``x-kubernetes-validations``), run offline as the API server runs them on create.

Each rule is evaluated with ``self`` bound to the value of the field whose schema holds
it (``oldSelf`` is absent: offline, every CR is being created).  A rule that gives
``false`` is a ``Violation``: its ``message`` (or ``messageExpression``, or
"failed rule: <rule>"), at the field the rule names with ``fieldPath``.

cel-python evaluates the rules, with the parts of the Kubernetes CEL library that CRDs
reach for implemented here on Python's ``ipaddress``, ``urllib`` and ``decimal``: IPs and
CIDRs, URLs, quantities, the string and list extensions, and ``matches``/``find`` with
RE2 as in Go.  What this cannot evaluate the way the API server would (a function it
lacks, a construct cel-python does not parse) is never passed in silence nor a crash: it
is an ``Unchecked`` note, "cannot check rule <rule> offline: <why>", for the caller to show.
An evaluation error the server would also hit (a missing field, a malformed CIDR given to
``cidr()``) is a violation, as it is there.
"""

from __future__ import annotations

import decimal
import functools
import ipaddress
import re
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import celpy
import celpy.adapter
import celpy.celparser
from celpy import celtypes
from celpy.evaluation import CELEvalError

from engine.core.model import formats, structural

FieldPath = tuple[str | int, ...]
_REASONS = {
    "FieldValueInvalid": "Invalid value",
    "FieldValueForbidden": "Forbidden",
    "FieldValueRequired": "Required value",
    "FieldValueDuplicate": "Duplicate value",
}


@dataclass(frozen=True)
class Violation:
    """A rule that gave false (or failed as it would on the server) for a value."""

    path: FieldPath  # the field reported: the rule's own, or where its fieldPath points
    message: str
    rule: str
    value: Any  # the value at ``path`` (``self`` if the field path leads nowhere)
    reason: str = "FieldValueInvalid"


@dataclass(frozen=True)
class Unchecked:
    """A rule this cannot evaluate as the API server would, and why."""

    path: FieldPath
    rule: str
    why: str

    def __str__(self) -> str:
        return f"cannot check rule {self.rule!r} offline: {self.why}"


def check(schema: structural.Schema, value: Any) -> tuple[list[Violation], list[Unchecked]]:
    """Every rule under ``schema`` run on ``value``: the ones it breaks, and the ones it could not run."""
    violations: list[Violation] = []
    unchecked: list[Unchecked] = []
    for path, node_schema, node_value in _nodes(schema, value, ()):
        for entry in node_schema.get("x-kubernetes-validations") or ():
            if isinstance(entry, dict) and isinstance(entry.get("rule"), str):
                outcome = _run(entry, node_schema, node_value, path)
                if isinstance(outcome, Violation):
                    violations.append(outcome)
                elif isinstance(outcome, Unchecked):
                    unchecked.append(outcome)
    return violations, unchecked


def has_rules(schema: structural.Schema) -> bool:
    """Whether ``schema`` holds a CEL rule anywhere that ``check`` looks."""
    if not isinstance(schema, dict):
        return False
    if schema.get("x-kubernetes-validations"):
        return True
    inner = [
        *(schema.get("properties") or {}).values(),
        schema.get("items"),
        schema.get("additionalProperties"),
    ]
    return any(has_rules(sub) for sub in inner)


def _nodes(schema: structural.Schema, value: Any, path: FieldPath) -> Iterator[tuple[FieldPath, Any, Any]]:
    """Each value with its schema, outermost first; rules do not run on absent or null values."""
    if value is None or not isinstance(schema, dict):
        return
    yield path, schema, value
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            if sub is not None:
                yield from _nodes(sub, item, (*path, key))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            yield from _nodes(schema["items"], item, (*path, index))


# -- one rule ---------------------------------------------------------------------------------


class _ServerWouldFail(Exception):
    """Marks an evaluation error that the API server's CEL would raise too."""


def _run(
    entry: dict[str, Any], schema: structural.Schema, value: Any, path: FieldPath
) -> Violation | Unchecked | None:
    rule: str = entry["rule"]
    if "oldSelf" in rule and not entry.get("optionalOldSelf"):
        return None  # a transition rule: the server runs it on updates only, and offline is a create
    activation = {"self": to_cel(schema, value)}
    try:
        result = _evaluate(rule, activation)
    except _CannotEvaluate as error:
        return Unchecked(path, rule, str(error))
    except CELEvalError as error:
        if not _server_would_fail(error):
            return Unchecked(path, rule, _why(error))
        message = f"rule evaluation error: {_why(error)}"
        return Violation(path, message, rule, value, entry.get("reason") or "FieldValueInvalid")
    if not isinstance(result, celtypes.BoolType):
        return Unchecked(path, rule, f"it gave {type(result).__name__}, not a boolean")
    if result:
        return None
    where = (*path, *_field_path(entry.get("fieldPath")))
    return Violation(
        where,
        _message(entry, activation),
        rule,
        _value_at(value, where[len(path) :]),
        entry.get("reason") or "FieldValueInvalid",
    )


def _message(entry: dict[str, Any], activation: dict[str, Any]) -> str:
    """The rule's message: its messageExpression's string if that evaluates, else message, else the rule."""
    fallback = entry.get("message") or f"failed rule: {entry['rule']}"
    expression = entry.get("messageExpression")
    if isinstance(expression, str):
        try:
            text = _evaluate(expression, activation)
        except (_CannotEvaluate, CELEvalError):
            return fallback  # the server, too, falls back to message when the expression fails
        if isinstance(text, str) and text.strip():
            return str(text)
    return str(fallback)


def reason_text(reason: str) -> str:
    """How the API server words a rule's ``reason`` (``FieldValueForbidden`` -> "Forbidden")."""
    return _REASONS.get(reason, "Invalid value")


_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\]|\[([0-9]+)\]")


def _field_path(text: Any) -> FieldPath:
    """``.spec.ports['http']`` -> ``("spec", "ports", "http")``; nothing for an unreadable path."""
    if not isinstance(text, str):
        return ()
    steps: list[str | int] = []
    at = 0
    while at < len(text):
        step = _STEP.match(text, at)
        if step is None:
            return ()
        name, quoted, index = step.groups()
        steps.append(name if name is not None else (quoted if quoted is not None else int(index)))
        at = step.end()
    return tuple(steps)


def _value_at(value: Any, path: FieldPath) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            break
    return value


class _CannotEvaluate(Exception):
    pass


@functools.lru_cache(maxsize=512)
def _compiled(rule: str) -> Any:
    try:
        return _ENVIRONMENT.compile(rule)
    except celpy.celparser.CELParseError as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else "parse error"
        raise _CannotEvaluate(f"cel-python cannot parse it ({first})") from None


def _evaluate(rule: str, activation: dict[str, Any]) -> Any:
    program = _ENVIRONMENT.program(_compiled(rule), functions=LIBRARY)
    try:
        return program.evaluate(activation)
    except CELEvalError:
        raise
    except RecursionError:
        raise _CannotEvaluate("it nests too deeply for cel-python") from None
    except Exception as error:  # cel-python's own gaps surface as assorted Python errors
        raise _CannotEvaluate(f"cel-python failed on it ({type(error).__name__}: {error})") from None


def _server_would_fail(error: CELEvalError) -> bool:
    kind = error.args[1] if len(error.args) > 1 else None
    if kind is _ServerWouldFail or kind is ZeroDivisionError:
        return True
    return kind is KeyError and str(error.args[0]).startswith("no such")


def _why(error: CELEvalError) -> str:
    message = str(error.args[0]) if error.args else "evaluation failed"
    if message.startswith("undeclared reference to"):
        name = error.args[2][0] if len(error.args) > 2 and error.args[2] else "?"
        return f"no function {name!r} here (not in cel-python nor in this library of Kubernetes' CEL)"
    return message


_ENVIRONMENT = celpy.Environment()


# -- values, as the API server gives them to CEL ------------------------------------------------------

_RESERVED = frozenset(
    [
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    ]
)


def _escaped(name: str) -> str:
    """A property name as CEL rules spell it (``x-y`` -> ``x__dash__y``, ``if`` -> ``__if__``)."""
    if name in _RESERVED:
        return f"__{name}__"
    escaped = name.replace("__", "__underscores__")
    for char, word in ((".", "dot"), ("-", "dash"), ("/", "slash")):
        escaped = escaped.replace(char, f"__{word}__")
    return escaped


def to_cel(schema: Any, value: Any) -> Any:
    """``value`` as a CEL value, with an object's property names escaped as Kubernetes escapes them."""
    schema = schema if isinstance(schema, dict) else {}
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        extra = schema.get("additionalProperties")
        converted = {}
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, dict) else None)
            name = _escaped(key) if key in properties else key
            converted[celtypes.StringType(name)] = to_cel(sub, item)
        return celtypes.MapType(converted)
    if isinstance(value, list):
        return celtypes.ListType([to_cel(schema.get("items"), item) for item in value])
    return celpy.adapter.json_to_cel(value)


# -- the Kubernetes CEL library ------------------------------------------------------------------------------


def _fail(message: str) -> CELEvalError:
    return CELEvalError(message, _ServerWouldFail, ())


def _bool(value: bool) -> celtypes.BoolType:
    return celtypes.BoolType(value)


@dataclass(frozen=True)
class IP:
    """A CEL ``net.IP``: one address, IPv4 or IPv6, as ``ip("...")`` gives it."""

    address: ipaddress.IPv4Address | ipaddress.IPv6Address

    def __str__(self) -> str:
        return str(self.address)


@dataclass(frozen=True)
class CIDR:
    """A CEL ``net.CIDR``: an address with a prefix length, host bits kept as written."""

    interface: ipaddress.IPv4Interface | ipaddress.IPv6Interface

    def __str__(self) -> str:
        return str(self.interface)


def _parse_ip(text: str) -> IP | None:
    # Kubernetes refuses zones and IPv4-mapped IPv6 addresses, which Python would take.
    if "%" in text:
        return None
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return None
    return IP(address)


def _parse_cidr(text: str) -> CIDR | None:
    if "/" not in text or "%" in text:
        return None
    address, _, length = text.partition("/")
    if _parse_ip(address) is None or not length.isdigit() or (len(length) > 1 and length[0] == "0"):
        return None
    try:
        return CIDR(ipaddress.ip_interface(text))
    except ValueError:
        return None


def _is_ip(text: Any) -> Any:
    return _bool(_parse_ip(str(text)) is not None)


def _ip(value: Any) -> Any:
    if isinstance(value, CIDR):
        return IP(value.interface.ip)
    parsed = _parse_ip(str(value))
    return parsed if parsed is not None else _fail(f"IP Address {str(value)!r} parse error")


def _as_ip(value: Any) -> IP | CELEvalError:
    return value if isinstance(value, IP) else _ip(value)


def _is_cidr(text: Any) -> Any:
    return _bool(_parse_cidr(str(text)) is not None)


def _cidr(text: Any) -> Any:
    parsed = _parse_cidr(str(text))
    return parsed if parsed is not None else _fail(f"network address {str(text)!r} parse error")


def _contains_ip(cidr: CIDR, other: Any) -> Any:
    ip = _as_ip(other)
    if isinstance(ip, CELEvalError):
        return ip
    return _bool(ip.address.version == cidr.interface.version and ip.address in cidr.interface.network)


def _contains_cidr(cidr: CIDR, other: Any) -> Any:
    inner = other if isinstance(other, CIDR) else _cidr(other)
    if isinstance(inner, CELEvalError):
        return inner
    outer = cidr.interface.network
    network = inner.interface.network
    return _bool(network.version == outer.version and network.subnet_of(outer))  # type: ignore[arg-type]


def _masked(cidr: CIDR) -> Any:
    network = cidr.interface.network
    return CIDR(ipaddress.ip_interface(f"{network.network_address}/{network.prefixlen}"))


def _ip_test(test: Callable[[Any], bool]) -> Callable[[IP], Any]:
    return lambda ip: _bool(test(ip.address))


def _global_unicast(address: Any) -> bool:
    # Go's IsGlobalUnicast: not unspecified, loopback, multicast, link-local or the IPv4 broadcast.
    return not (
        address.is_unspecified
        or address.is_loopback
        or address.is_multicast
        or address.is_link_local
        or str(address) == "255.255.255.255"
    )


@dataclass(frozen=True)
class URL:
    """A CEL ``url``: what Go's ``url.ParseRequestURI`` makes of a string."""

    parts: urllib.parse.SplitResult

    def __str__(self) -> str:
        return self.parts.geturl()


def _parse_url(text: str) -> URL | None:
    if not text or any(c.isspace() for c in text) or "#" in text:
        return None
    try:
        parts = urllib.parse.urlsplit(text)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        return None
    if not (parts.scheme or text.startswith("/")):
        return None
    return URL(parts)


def _url(text: Any) -> Any:
    parsed = _parse_url(str(text))
    return parsed if parsed is not None else _fail(f"URL {str(text)!r} could not be parsed")


def _host(url: URL) -> Any:
    host = url.parts.netloc.rpartition("@")[2]
    return celtypes.StringType(host)


def _hostname(url: URL) -> Any:
    return celtypes.StringType(url.parts.hostname or "")


def _port(url: URL) -> Any:
    host = url.parts.netloc.rpartition("@")[2]
    port = host.rpartition(":")[2] if ":" in host.rpartition("]")[2] else ""
    return celtypes.StringType(port)


def _query(url: URL) -> Any:
    query = urllib.parse.parse_qs(url.parts.query, keep_blank_values=True)
    return celtypes.MapType(
        {celtypes.StringType(k): celtypes.ListType(map(celtypes.StringType, v)) for k, v in query.items()}
    )


# Quantities: the suffixes of k8s.io/apimachinery's resource.Quantity.
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_QUANTITY = re.compile(
    r"^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)


@dataclass(frozen=True)
class Quantity:
    """A CEL ``Quantity``: an exact decimal amount, however it was written (``1Gi``, ``500m``, ``1e3``)."""

    amount: decimal.Decimal
    text: str

    def __str__(self) -> str:
        return self.text


def _parse_quantity(text: str) -> Quantity | None:
    found = _QUANTITY.match(text)
    if found is None:
        return None
    number, suffix = decimal.Decimal(found.group(1)), found.group(2) or ""
    if suffix in _BINARY:
        amount = number * _BINARY[suffix]
    elif suffix in _DECIMAL:
        amount = number.scaleb(_DECIMAL[suffix])
    else:
        amount = number.scaleb(int(suffix[1:]))
    return Quantity(amount, text)


def _quantity(value: Any) -> Any:
    parsed = _parse_quantity(str(value))
    return parsed if parsed is not None else _fail(f"quantities must match the regular expression: {value!r}")


def _as_quantity(value: Any) -> Quantity | CELEvalError:
    if isinstance(value, Quantity):
        return value
    if isinstance(value, int):
        return Quantity(decimal.Decimal(int(value)), str(int(value)))
    parsed = _parse_quantity(str(value))
    return parsed if parsed is not None else _fail(f"quantities must match the regular expression: {value!r}")


def _compare(one: Quantity, other: Any) -> Any:
    second = _as_quantity(other)
    if isinstance(second, CELEvalError):
        return second
    return celtypes.IntType((one.amount > second.amount) - (one.amount < second.amount))


def _arith(sign: int) -> Callable[[Quantity, Any], Any]:
    def combine(one: Quantity, other: Any) -> Any:
        second = _as_quantity(other)
        if isinstance(second, CELEvalError):
            return second
        amount = one.amount + sign * second.amount
        return Quantity(amount, format(amount.normalize(), "f"))

    return combine


def _as_integer(quantity: Quantity) -> Any:
    if quantity.amount != quantity.amount.to_integral_value() or abs(quantity.amount) >= 2**63:
        return _fail(f"cannot convert value {quantity} to integer")
    return celtypes.IntType(int(quantity.amount))


# Strings and lists: the Kubernetes string extensions and list library.


def _index_of(container: Any, item: Any, offset: Any = 0) -> Any:
    if isinstance(container, str):
        if not 0 <= int(offset) <= len(container):
            return _fail(f"index out of range: {offset}")
        return celtypes.IntType(container.find(str(item), int(offset)))
    found = [i for i, element in enumerate(container) if element == item]
    return celtypes.IntType(found[0] if found else -1)


def _last_index_of(container: Any, item: Any, offset: Any = None) -> Any:
    if isinstance(container, str):
        end = len(container) if offset is None else int(offset) + len(str(item))
        return celtypes.IntType(container.rfind(str(item), 0, end))
    found = [i for i, element in enumerate(container) if element == item]
    return celtypes.IntType(found[-1] if found else -1)


def _split(text: Any, separator: Any, limit: Any = -1) -> Any:
    limit = int(limit)
    if limit == 0:
        return celtypes.ListType()
    parts = (
        str(text).split(str(separator), limit - 1 if limit > 0 else -1) if str(separator) else list(str(text))
    )
    if not str(separator) and limit > 0 and len(parts) > limit:
        parts = [*parts[: limit - 1], "".join(parts[limit - 1 :])]
    return celtypes.ListType(map(celtypes.StringType, parts))


def _substring(text: Any, start: Any, end: Any = None) -> Any:
    stop = len(text) if end is None else int(end)
    if not 0 <= int(start) <= stop <= len(text):
        return _fail(f"index out of range: {start}, {end}")
    return celtypes.StringType(str(text)[int(start) : stop])


def _replace(text: Any, old: Any, new: Any, count: Any = -1) -> Any:
    return celtypes.StringType(str(text).replace(str(old), str(new), int(count)))


def _char_at(text: Any, index: Any) -> Any:
    if not 0 <= int(index) <= len(text):
        return _fail(f"index out of range: {index}")
    return celtypes.StringType(str(text)[int(index) : int(index) + 1])


def _join(items: Any, separator: Any = "") -> Any:
    return celtypes.StringType(str(separator).join(str(item) for item in items))


def _ascii(change: Callable[[str], str]) -> Callable[[Any], Any]:
    def convert(text: Any) -> Any:
        return celtypes.StringType("".join(change(c) if c.isascii() else c for c in str(text)))

    return convert


def _matches(text: Any, pattern: Any) -> Any:
    try:
        return _bool(formats.search(str(pattern), str(text)))
    except ValueError as error:
        return _fail(str(error))


def _find(text: Any, pattern: Any) -> Any:
    try:
        found = formats.compiled(str(pattern)).search(str(text))
    except ValueError as error:
        return _fail(str(error))
    return celtypes.StringType(found.group(0) if found else "")


def _find_all(text: Any, pattern: Any, limit: Any = -1) -> Any:
    try:
        found = [m.group(0) for m in formats.compiled(str(pattern)).finditer(str(text))]
    except ValueError as error:
        return _fail(str(error))
    return celtypes.ListType(map(celtypes.StringType, found if int(limit) < 0 else found[: int(limit)]))


def _is_sorted(items: Any) -> Any:
    return _bool(all(a <= b for a, b in zip(items, list(items)[1:], strict=False)))


def _sum(items: Any) -> Any:
    total: Any = celtypes.IntType(0)
    for item in items:
        total = total + item
    return total


def _max(items: Any, *more: Any) -> Any:
    values = list(items) if not more and isinstance(items, list) else [items, *more]
    return max(values) if values else _fail("max of an empty list")


LIBRARY: dict[str, Callable[..., Any]] = {
    # IPs and CIDRs (Kubernetes' net library)
    "isIP": _is_ip,
    "ip": _ip,
    "family": lambda ip: celtypes.IntType(ip.address.version),
    "isUnspecified": _ip_test(lambda a: a.is_unspecified),
    "isLoopback": _ip_test(lambda a: a.is_loopback),
    "isLinkLocalMulticast": _ip_test(
        lambda a: (a.is_multicast and a.is_link_local) or str(a).startswith("224.0.0.")
    ),
    "isLinkLocalUnicast": _ip_test(lambda a: a.is_link_local and not a.is_multicast),
    "isGlobalUnicast": _ip_test(_global_unicast),
    "isCIDR": _is_cidr,
    "cidr": _cidr,
    "containsIP": _contains_ip,
    "containsCIDR": _contains_cidr,
    "masked": _masked,
    "prefixLength": lambda cidr: celtypes.IntType(cidr.interface.network.prefixlen),
    # URLs
    "isURL": lambda text: _bool(_parse_url(str(text)) is not None),
    "url": _url,
    "getScheme": lambda url: celtypes.StringType(url.parts.scheme),
    "getHost": _host,
    "getHostname": _hostname,
    "getPort": _port,
    "getEscapedPath": lambda url: celtypes.StringType(url.parts.path),
    "getQuery": _query,
    # Quantities
    "isQuantity": lambda text: _bool(_parse_quantity(str(text)) is not None),
    "quantity": _quantity,
    "isInteger": lambda q: _bool(q.amount == q.amount.to_integral_value()),
    "asInteger": _as_integer,
    "asApproximateFloat": lambda q: celtypes.DoubleType(float(q.amount)),
    "sign": lambda q: celtypes.IntType((q.amount > 0) - (q.amount < 0)),
    "add": _arith(1),
    "sub": _arith(-1),
    "compareTo": _compare,
    "isGreaterThan": lambda q, other: _bool(_compare(q, other) == 1),
    "isLessThan": lambda q, other: _bool(_compare(q, other) == -1),
    # Strings, lists and regular expressions
    "charAt": _char_at,
    "indexOf": _index_of,
    "lastIndexOf": _last_index_of,
    "lowerAscii": _ascii(str.lower),
    "upperAscii": _ascii(str.upper),
    "replace": _replace,
    "split": _split,
    "substring": _substring,
    "trim": lambda text: celtypes.StringType(str(text).strip(" \t\n\r\v\f\u0085\u00a0")),
    "join": _join,
    "matches": _matches,
    "find": _find,
    "findAll": _find_all,
    "isSorted": _is_sorted,
    "sum": _sum,
    "max": _max,
}
