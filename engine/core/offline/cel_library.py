"""The parts of the Kubernetes CEL library that CRDs reach for, for cel-python to call.

cel-python evaluates CRD rules (``validation_rules``) with standard CEL only; the API
server adds a library of its own.  The functions rules use are implemented here on
Python's ``ipaddress``, ``urllib`` and ``decimal``: IPs and CIDRs, URLs, quantities, the
string and list extensions, and ``matches``/``find`` with RE2 as in Go (``formats``).
``LIBRARY`` maps each CEL name to its function.

Where the server's function fails (an index out of range, a CIDR that does not parse),
this one returns an evaluation error marked ``ServerWouldFail``, which ``validation_rules``
reports as a broken rule rather than one it cannot check.
"""

from __future__ import annotations

import decimal
import ipaddress
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from celpy import celtypes
from celpy.evaluation import CELEvalError

from engine.core.model.crds import formats


class ServerWouldFail(Exception):
    """Marks an evaluation error that the API server's CEL would raise too."""


def _fail(message: str) -> CELEvalError:
    return CELEvalError(message, ServerWouldFail, ())


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
