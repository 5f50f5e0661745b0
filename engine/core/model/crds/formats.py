"""What a string in a CR must look like, read as Go and ``k8s.io/kube-openapi`` read it.

- patterns are matched with RE2, as Go's ``regexp`` does: in linear time whatever the
  value, and with RE2's syntax (a pattern Python would take but Go would not is an error);
- ``format`` checks what ``k8s.io/kube-openapi``'s ``strfmt`` registry checks (unknown
  formats pass, as they do there), and ``int32``/``int64`` bound integers.

These are plain predicates over strings, apart from the schema keywords that use them
(``keywords``), because CEL's ``matches`` and ``find`` (``engine.core.offline.cel_library``)
read patterns the same way: one compiled RE2 per pattern serves both.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import functools
import ipaddress
from collections.abc import Callable
from typing import Any

import re2

# -- patterns, as Go's regexp reads them ----------------------------------------------------

_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a bad pattern is reported to the user, not logged by the C++ library


@functools.lru_cache(maxsize=1024)
def compiled(pattern: str) -> Any:
    """``pattern`` compiled with RE2 (once per pattern); raises ``ValueError`` naming what is wrong."""
    try:
        return re2.compile(pattern, _RE2_OPTIONS)
    except re2.error as error:
        reason = error.args[0].decode() if error.args and isinstance(error.args[0], bytes) else str(error)
        raise ValueError(f"invalid pattern {pattern!r}: {reason}") from None


@functools.lru_cache(maxsize=8192)
def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (unanchored, as JSON Schema and Go read it).

    Remembered: a folder of CRs repeats its labels, names and images, each checked once."""
    return compiled(pattern).search(text) is not None


# -- formats, as k8s.io/kube-openapi's strfmt checks them ----------------------------------------

INT_RANGES = {"int32": (-(2**31), 2**31 - 1), "int64": (-(2**63), 2**63 - 1)}


def _ip(version: int) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        try:
            return ipaddress.ip_address(text).version == version
        except ValueError:
            return False

    return check


def _cidr(text: str) -> bool:
    # Go's net.ParseCIDR takes host bits (10.0.0.1/8) but wants the prefix length.
    if "/" not in text:
        return False
    try:
        ipaddress.ip_interface(text)
    except ValueError:
        return False
    return True


def _base64(text: str) -> bool:
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def _date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return search(r"^\d{4}-\d{2}-\d{2}$", text)


def _date_time(text: str) -> bool:
    if not search(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$", text):
        return False
    try:
        datetime.datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def _hostname(text: str) -> bool:
    labels = text.rstrip(".").split(".")
    return len(text) <= 255 and all(
        search(r"^[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?$", label) for label in labels
    )


def _matching(pattern: str) -> Callable[[str], bool]:
    return lambda text: search(pattern, text)


_UUID = "^(?i)[0-9a-f]{8}-?[0-9a-f]{4}-?%s[0-9a-f]{3}-?%s[0-9a-f]{3}-?[0-9a-f]{12}$"
_GO_DURATION = r"([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|ms|s|m|h)"

# The formats strfmt's default registry validates; any other format is accepted as it is there.
STRING_FORMATS: dict[str, Callable[[str], bool]] = {
    "bsonobjectid": _matching("^[0-9a-fA-F]{24}$"),
    "uri": _matching(r"^([A-Za-z][A-Za-z0-9+.-]*:|/)[^\s]*$"),
    "email": _matching(r"^([^<>@\s]+ )*<?[^<>@\s]+@[^<>@\s]+>?$"),
    "hostname": _hostname,
    "ipv4": _ip(4),
    "ipv6": _ip(6),
    "cidr": _cidr,
    "mac": _matching(
        r"^([0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(([:-])[0-9A-Fa-f]{2}){4}((([:-])[0-9A-Fa-f]{2}){2}"
        r"((([:-])[0-9A-Fa-f]{2}){12})?)?|[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}\.[0-9A-Fa-f]{4}"
        r"((\.[0-9A-Fa-f]{4})(\.[0-9A-Fa-f]{4}){5}?)?)$"
    ),
    "uuid": _matching(_UUID % ("[0-9a-f]", "[0-9a-f]")),
    "uuid3": _matching(_UUID % ("3", "[0-9a-f]")),
    "uuid4": _matching(_UUID % ("4", "[89ab]")),
    "uuid5": _matching(_UUID % ("5", "[89ab]")),
    "ssn": _matching(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"),
    "hexcolor": _matching("^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"),
    "rgbcolor": _matching(
        r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,"
        r"\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$"
    ),
    "byte": _base64,
    "date": _date,
    "date-time": _date_time,
    "datetime": _date_time,
    "duration": _matching(
        rf"^([-+]?({_GO_DURATION})+|0|[0-9]+\s*(ns|us|ms|s|m|h|d|w|nanoseconds?|microseconds?|"
        r"milliseconds?|seconds?|minutes?|hours?|days?|weeks?))$"
    ),
}
