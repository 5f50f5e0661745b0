"""Rendering: a kind's templates, a parent and its observed children -> the children to apply.

``render(kind, parent, observed)`` is pure (no I/O; the clock is read only to
enforce the time budget) and deterministic: the same inputs give the same list
of plain JSON dicts, ready for server-side apply.

Safety.  A value from the CR must never change the *structure* of a manifest,
however it is spelled (newlines, quotes, ``: ``, ``---``, ``&anchors``, ``!!tags``).
Escaping values for YAML would be one more thing every template author must
get right, so values never reach the YAML parser at all:

1. every ``{{ ... }}`` goes through the environment's ``finalize``, which
   records the value and writes an opaque token instead, ``stencilv<nonce>x<n>z``
   (letters and digits only, with a random nonce per render so no value can
   forge one);
2. the text, now made only of the template's own characters and tokens, is
   parsed as YAML with ``kinds.StrictLoader`` (no duplicate keys, no aliases,
   JSON types only);
3. the tree is walked once: a plain scalar that is exactly one token becomes
   the value itself, with its type (``replicas: {{ spec.replicas }}`` is an
   int, ``resources: {{ spec.resources }}`` the mapping); tokens inside other
   strings (quoted, block or mixed with text) and in keys become the value's
   string form.  Substitution is a single pass, so a value is never re-read.

What a template prints inside ``{% set %}`` blocks and macros is therefore
text with tokens in it; the filters here (``tojson``, ``sha256``...) and
``finalize`` resolve them, so a checksum of a ``{% set %}`` block hashes the
real values.

Placement is the engine's decision, not the template's: children land in the
parent's namespace; another namespace, a cluster-scoped kind or an RBAC kind is
a ``PlacementError`` unless ``kind.yaml`` allows it.  Every child gets Stencil's
labels and, where Kubernetes permits one, a controller owner reference.

Budgets: each template gets ``Limits.seconds`` of wall time, checked on every
attribute access, call, loop iteration and output chunk, and
``Limits.output_chars`` of output (text plus interpolated values), so neither
a runaway template nor a huge CR value can stall or flood the engine.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
import re
import secrets
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import yaml
from jinja2 import BaseLoader, Environment, StrictUndefined, TemplateNotFound, nodes, pass_context
from jinja2.compiler import CodeGenerator, Frame
from jinja2.exceptions import SecurityError, TemplateSyntaxError, UndefinedError
from jinja2.runtime import Context, Undefined
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import missing

from engine.core import kinds
from engine.core.errors import PlacementError, RenderError

# -- what every child carries -----------------------------------------------------

MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
MANAGED_BY_VALUE = "stencil"
KIND_LABEL = "stencil.dev/kind"
PARENT_NAME_LABEL = "stencil.dev/parent-name"
PARENT_NAMESPACE_LABEL = "stencil.dev/parent-namespace"  # absent for cluster-scoped parents
PARENT_UID_LABEL = "stencil.dev/parent-uid"

# Offline (``stencil render``) a parent has no uid yet; a fixed one keeps the output stable.
NO_UID = "00000000-0000-0000-0000-000000000000"

RBAC_GROUP = "rbac.authorization.k8s.io"
RBAC_KINDS = frozenset({"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"})

# Built-in cluster-scoped kinds by (group, kind), for when no API server can be asked.
CLUSTER_SCOPED = frozenset(
    {
        ("", "Namespace"),
        ("", "Node"),
        ("", "PersistentVolume"),
        ("", "ComponentStatus"),
        (RBAC_GROUP, "ClusterRole"),
        (RBAC_GROUP, "ClusterRoleBinding"),
        ("apiextensions.k8s.io", "CustomResourceDefinition"),
        ("apiregistration.k8s.io", "APIService"),
        ("admissionregistration.k8s.io", "ValidatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "MutatingWebhookConfiguration"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
        ("admissionregistration.k8s.io", "ValidatingAdmissionPolicyBinding"),
        ("storage.k8s.io", "StorageClass"),
        ("storage.k8s.io", "CSIDriver"),
        ("storage.k8s.io", "CSINode"),
        ("storage.k8s.io", "VolumeAttachment"),
        ("scheduling.k8s.io", "PriorityClass"),
        ("networking.k8s.io", "IngressClass"),
        ("node.k8s.io", "RuntimeClass"),
        ("certificates.k8s.io", "CertificateSigningRequest"),
        ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
        ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    }
)


def group_of(api_version: str) -> str:
    """``apps/v1`` -> ``apps``; ``v1`` -> ``""`` (the core group)."""
    return api_version.rpartition("/")[0]


def builtin_is_namespaced(api_version: str, kind: str) -> bool:
    """Scope from the built-in table: every kind not known to be cluster-scoped is namespaced."""
    return (group_of(api_version), kind) not in CLUSTER_SCOPED


@dataclass(frozen=True)
class Limits:
    """Per template: wall-clock seconds, and characters of output (text plus interpolated values)."""

    seconds: float = 1.0
    output_chars: int = 1 << 20


DEFAULT_LIMITS = Limits()


# -- the entry point ------------------------------------------------------------------


def render(
    kind: kinds.Kind,
    parent: dict[str, Any],
    observed: Sequence[dict[str, Any]],
    *,
    is_namespaced: Callable[[str, str], bool] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> list[dict[str, Any]]:
    """The children ``kind``'s templates make for ``parent``, placed, labelled and owned.

    ``observed`` are the parent's children as the cluster has them (templates
    can read, say, a Service's assigned clusterIP).  ``is_namespaced`` tells the
    scope of a child kind; without it the built-in table is used.  A parent
    with a ``metadata.namespace`` is namespaced, one without is cluster-scoped.
    Raises ``RenderError`` (or ``PlacementError``) naming the template, line and
    CR field involved.
    """
    owner = _Owner.of(kind, parent)
    scope = is_namespaced or builtin_is_namespaced
    environment = _environment(kind.templates)
    context = _context(parent, observed)
    children: list[dict[str, Any]] = []
    seen: dict[tuple[str, str, str, str], str] = {}
    for template in kind.templates:
        for document in _render_template(environment, template, context, limits):
            child = _place(document, owner, kind, scope, template)
            meta = child["metadata"]
            identity = (group_of(child["apiVersion"]), child["kind"], meta.get("namespace", ""), meta["name"])
            if identity in seen:
                raise RenderError(f"{_describe(child)} is rendered twice (also by {seen[identity]})",
                                  file=str(template.path))
            seen[identity] = template.name
            children.append(child)
    return children


# -- one template -----------------------------------------------------------------------


def _render_template(
    environment: _Sandbox, template: kinds.Template, context: dict[str, Any], limits: Limits
) -> list[Any]:
    """Render one template to its documents, values filled in, empty documents dropped."""
    run = _Run(limits)
    token = _RUN.set(run)
    try:
        text = _generate(environment, template, context, run)
        return [doc for doc in _parse(text, run, template) if doc is not None]
    finally:
        _RUN.reset(token)


def _generate(environment: _Sandbox, template: kinds.Template, context: dict[str, Any], run: _Run) -> str:
    file = str(template.path)
    chunks: list[str] = []
    try:
        for chunk in environment.get_template(template.name).generate(context):
            run.tick()
            run.charge(len(chunk))
            chunks.append(chunk)
    except TemplateSyntaxError as error:
        raise RenderError(f"template syntax error: {error.message}", file=error.filename or file,
                          line=error.lineno) from error
    except Exception as error:  # every failure inside a template is reported with its location
        raise _located(error, environment, file) from error
    return "".join(chunks)


def _located(error: Exception, environment: _Sandbox, default_file: str) -> RenderError:
    """A ``RenderError`` for an exception raised while a template ran, at the template line it came from."""
    file, line = default_file, None
    frame = error.__traceback__
    while frame is not None:  # Jinja rewrites the traceback so template frames carry template lines
        if frame.tb_frame.f_code.co_filename in environment.filenames:
            file, line = frame.tb_frame.f_code.co_filename, frame.tb_lineno
        frame = frame.tb_next
    field = None
    if isinstance(error, _MissingField):
        field = error.field
        where = "in the observed child" if field.startswith(("children", "child(")) else "in the parent"
        message = f"not set {where} (use `is defined` or `| default(...)` if it is optional)"
    elif isinstance(error, _OverBudget | _Unplaceable):
        message = str(error)
    elif isinstance(error, UndefinedError):
        message = error.message or "undefined value"
    elif isinstance(error, SecurityError):
        message = f"not allowed in a template: {error}"
    elif isinstance(error, RecursionError):
        message = "the template recurses too deeply"
    elif isinstance(error, TemplateNotFound):
        message = f"no template {error.name!r} in this kind folder"
    else:
        message = f"{type(error).__name__}: {error}"
    return RenderError(message, file=file, line=line, field=field)


# -- values and tokens ------------------------------------------------------------------


class _OverBudget(Exception):
    """A template ran out of time or output."""


class _Unplaceable(Exception):
    """A template printed something that is not JSON data (a function, a loop object...)."""


_RUN: ContextVar[_Run] = ContextVar("stencil_render")

# Powers beyond this many bits are refused before Python spends minutes computing them.
_MAX_POWER_BITS = 1 << 16
_JSON_SCALARS = (str, int, float, bool, type(None))


class _Run:
    """One template's rendering: the values behind its tokens, and what is left of its budget."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.nonce = secrets.token_hex(10)
        self.prefix = f"stencilv{self.nonce}x"
        self.token = re.compile(rf"{self.prefix}(\d+)z")
        self.values: list[Any] = []
        self.used: set[int] = set()
        self.deadline = time.monotonic() + limits.seconds
        self.remaining = limits.output_chars

    def tick(self) -> None:
        if time.monotonic() > self.deadline:
            raise _OverBudget(f"rendering took longer than {self.limits.seconds:g}s (an endless loop?)")

    def charge(self, chars: int) -> None:
        self.remaining -= chars
        if self.remaining < 0:
            raise _OverBudget(f"the output is larger than {self.limits.output_chars} characters")

    def placeholder(self, value: Any) -> str:
        """Record ``value`` (as JSON data) and return the token that stands for it."""
        self.values.append(self.plain(value))
        return f"{self.prefix}{len(self.values) - 1}z"

    def take(self, index: int) -> Any:
        """The value of token ``index``; a copy if the token was already used (a tree shares nothing)."""
        value = self.values[index]
        if index in self.used:
            return _copy(value)
        self.used.add(index)
        return value

    def text(self, index: int) -> str:
        return _text(self.values[index])

    def resolve(self, text: str) -> str:
        """``text`` with every token replaced by its value's string form, in one pass."""
        if self.prefix not in text:
            return text
        return self.token.sub(lambda m: self.text(int(m.group(1))), text)

    def plain(self, value: Any) -> Any:
        """``value`` as a fresh tree of JSON data, tokens in its strings resolved, its size charged."""
        if isinstance(value, _View):
            value = value._data
        if isinstance(value, str):
            self.charge(len(value))
            return self.resolve(str(value))  # str() drops a Markup subclass
        if value is None or isinstance(value, bool | int | float):
            self.charge(8)
            return value
        if isinstance(value, Undefined):
            str(value)  # raises, naming what is missing
        if isinstance(value, Mapping):
            self.charge(2)
            return {self._key(k): self.plain(v) for k, v in value.items()}
        if isinstance(value, Set):
            return self.plain(sorted(value))
        if isinstance(value, Iterable):  # lists, tuples, and what filters such as map() return
            self.charge(2)
            return [self.plain(v) for v in value]
        raise _Unplaceable(f"a {type(value).__name__} cannot be placed in a manifest")

    def _key(self, key: Any) -> Any:
        if isinstance(key, str):
            return self.resolve(str(key))
        if isinstance(key, _JSON_SCALARS):
            return key
        raise _Unplaceable(f"a {type(key).__name__} cannot be a mapping key")


def _text(value: Any) -> str:
    """A value's string form where it is part of a longer string: itself for strings, else JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


@pass_context
def _finalize(context: Context, value: Any) -> str:
    # pass_context keeps Jinja from folding constant outputs through finalize at
    # compile time, when there is no render to record them in.
    return _RUN.get().placeholder(value)


# -- parsing the rendered text ------------------------------------------------------------


class _Slot:
    """A plain scalar that was exactly one token: the value goes here, type and all."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index


def _construct_str(loader: _RenderLoader, node: yaml.ScalarNode) -> str | _Slot:
    value = loader.construct_scalar(node)
    if not node.style:  # plain (libyaml says "", the Python parser None)
        match = loader.run.token.fullmatch(value)
        if match is not None:
            return _Slot(int(match.group(1)))
    return value


class _RenderLoader(kinds.StrictLoader):
    """``StrictLoader`` that turns whole-token plain scalars into slots."""

    run: _Run
    yaml_constructors = {**kinds.StrictLoader.yaml_constructors, "tag:yaml.org,2002:str": _construct_str}


def _parse(text: str, run: _Run, template: kinds.Template) -> list[Any]:
    """The documents of the rendered ``text``, with the values filled in."""
    if len(re.findall(run.nonce, text, re.IGNORECASE)) != len(run.token.findall(text)):
        raise RenderError(
            "an interpolation was altered after it was printed (by a `{% filter %}` block?); "
            "apply filters to values inside {{ }} instead",
            file=str(template.path),
        )
    documents: list[Any] = []
    try:
        kinds.check_no_anchors(text)
        loader = _RenderLoader(text)
        loader.run = run
        try:
            while loader.check_node():
                documents.append(loader.construct_document(loader.get_node()))
        finally:
            loader.dispose()
    except yaml.YAMLError as error:
        line, problem = kinds.yaml_problem(error)
        raise RenderError(_quote_problem(text, line, problem, run), file=str(template.path)) from error
    return [_Filler(run, template).fill(doc, "") for doc in documents]


def _quote_problem(text: str, line: int | None, problem: str, run: _Run) -> str:
    """A YAML problem in rendered output, quoting the rendered line with ``{{…}}`` for each value.

    The values themselves are left out: they may be secrets, and the message
    ends up in conditions and events.
    """
    if line is None:
        return f"the rendered output is not valid YAML: {problem}"
    lines = text.splitlines()
    quoted = run.token.sub("{{…}}", lines[line - 1]) if 0 < line <= len(lines) else ""
    return f"the rendered output is not valid YAML at rendered line {line}: {problem}: {quoted.strip()!r}"


class _Filler:
    """Put the values into a parsed document; refuse keys that collide once filled in."""

    def __init__(self, run: _Run, template: kinds.Template) -> None:
        self.run = run
        self.template = template

    def fill(self, value: Any, path: str) -> Any:
        if isinstance(value, _Slot):
            return self.run.take(value.index)
        if isinstance(value, str):
            return self.run.resolve(value)
        if isinstance(value, dict):
            filled: dict[Any, Any] = {}
            for key, item in value.items():
                name = self.run.text(key.index) if isinstance(key, _Slot) else (
                    self.run.resolve(key) if isinstance(key, str) else key
                )
                if name in filled:
                    raise RenderError(
                        f"duplicate key {name!r} once the values are filled in", file=str(self.template.path),
                        field=path or None,
                    )
                filled[name] = self.fill(item, _join(path, name))
            return filled
        if isinstance(value, list):
            return [self.fill(item, f"{path}[{index}]") for index, item in enumerate(value)]
        return value


# -- the sandbox ------------------------------------------------------------------------

_LOOP_GUARD = "_stencil_loop_guard"


def _loop_guard(iterable: Iterable[Any]) -> Iterator[Any]:
    """Every ``{% for %}`` iterates through this, so even an empty loop body watches the clock."""
    run = _RUN.get()
    for count, item in enumerate(iterable):
        if not count & 63:
            run.tick()
        yield item


class _GuardedCodeGenerator(CodeGenerator):
    """Jinja's code generator with every ``for`` loop's iterable passed through ``_loop_guard``."""

    def visit_Template(self, node: nodes.Template, frame: Frame | None = None) -> None:
        # Rewritten before Jinja collects the filters a template uses, so the guard is among them.
        for loop in list(node.find_all(nodes.For)):
            loop.iter = nodes.Filter(loop.iter, _LOOP_GUARD, [], [], None, None, lineno=loop.lineno)
        super().visit_Template(node, frame)


class _Sandbox(ImmutableSandboxedEnvironment):
    """The immutable sandbox with a clock on every attribute, item and call, and bounded ``*``/``**``."""

    code_generator_class = _GuardedCodeGenerator
    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, templates: tuple[kinds.Template, ...]) -> None:
        super().__init__(
            loader=_KindFiles(templates),
            undefined=_Undefined,
            finalize=_finalize,
            autoescape=False,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            auto_reload=False,
        )
        self.filenames = frozenset(str(t.path) for t in templates)
        # Both would make rendering non-deterministic, and a changed render is a write.
        del self.globals["lipsum"]
        del self.filters["random"]
        self.filters.update(
            tojson=_tojson,
            b64encode=_b64encode,
            b64decode=_b64decode,
            sha256=_sha256,
            hash=_sha256,
        )
        self.filters[_LOOP_GUARD] = _loop_guard

    def getattr(self, obj: Any, attribute: str) -> Any:
        _RUN.get().tick()
        if isinstance(obj, _Tracked) and attribute in obj._data:
            return obj[attribute]  # a CR field wins over a Mapping method of the same name (items, keys...)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        _RUN.get().tick()
        return super().getitem(obj, argument)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        _RUN.get().tick()
        return super().call(__context, __obj, *args, **kwargs)

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        run = _RUN.get()
        if operator == "*":
            for sequence, count in ((left, right), (right, left)):
                if (isinstance(sequence, str | list | tuple) and isinstance(count, int)
                        and len(sequence) * count > run.remaining):
                    raise _OverBudget(f"`*` would make a value of {len(sequence) * count} items")
        elif (
            isinstance(left, int) and isinstance(right, int) and right > 0
            and abs(left).bit_length() * right > _MAX_POWER_BITS
        ):
            raise _OverBudget(f"`**` would make a number of about {abs(left).bit_length() * right} bits")
        return super().call_binop(context, operator, left, right)


class _KindFiles(BaseLoader):
    """The kind's own templates, by file name, for ``get_template`` and ``{% include %}``."""

    def __init__(self, templates: tuple[kinds.Template, ...]) -> None:
        self.by_name = {t.name: t for t in templates}

    def get_source(self, environment: Environment, template: str) -> tuple[str, str, Callable[[], bool]]:
        found = self.by_name.get(template)
        if found is None:
            raise TemplateNotFound(template)
        return found.text, str(found.path), lambda: True


@functools.lru_cache(maxsize=64)
def _environment(templates: tuple[kinds.Template, ...]) -> _Sandbox:
    """One sandbox per set of templates, so each template is compiled once, not on every reconcile."""
    return _Sandbox(templates)


# -- filters ------------------------------------------------------------------------------


def _canonical(value: Any) -> str:
    return json.dumps(_RUN.get().plain(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _tojson(value: Any, indent: int | None = None) -> str:
    """JSON text of a value (keys sorted), e.g. for an annotation or a JSON config file."""
    return json.dumps(_RUN.get().plain(value), sort_keys=True, indent=indent, ensure_ascii=False)


def _as_text(value: Any) -> str:
    run = _RUN.get()
    return run.resolve(str(value)) if isinstance(value, str) else _canonical(value)


def _b64encode(value: Any) -> str:
    """base64 of a string's UTF-8 bytes (of canonical JSON for anything else), as for Secret data."""
    return base64.b64encode(_as_text(value).encode()).decode("ascii")


def _b64decode(value: Any) -> str:
    try:
        return base64.b64decode(_as_text(value), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError) as error:
        raise ValueError(f"b64decode: not base64 of UTF-8 text ({error})") from error


def _sha256(value: Any) -> str:
    """A stable hex digest: of a string's UTF-8 bytes, or of canonical JSON (for config checksums)."""
    return hashlib.sha256(_as_text(value).encode()).hexdigest()


# -- the template context -------------------------------------------------------------------


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}" if path else key
    return f"{path}[{key!r}]"


class _View:
    """A read-only view of data from the CR that knows its path, for "spec.replicas is not set"."""

    __slots__ = ("_data", "_path")

    def __init__(self, data: Any, path: str) -> None:
        self._data = data
        self._path = path

    def __len__(self) -> int:
        return len(self._data)

    def __eq__(self, other: object) -> bool:
        return bool(self._data == _untracked(other))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self._data)


class _Tracked(_View, Mapping[str, Any]):
    """A mapping of the CR (or of a child) as templates see it."""

    __slots__ = ()

    def __getitem__(self, key: str) -> Any:
        return _track(self._data[key], _join(self._path, key))

    def __iter__(self) -> Iterator[str]:
        return iter(self._data)


class _TrackedList(_View, Sequence[Any]):
    """A list of the CR (or of a child) as templates see it."""

    __slots__ = ()

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return _TrackedList(self._data[index], self._path)
        return _track(self._data[index], _join(self._path, index))


def _track(value: Any, path: str) -> Any:
    if isinstance(value, dict):
        return _Tracked(value, path)
    if isinstance(value, list):
        return _TrackedList(value, path)
    return value


def _untracked(value: Any) -> Any:
    return value._data if isinstance(value, _View) else value


class _MissingField(UndefinedError):
    """A template read a field of the CR (or of a child) that is not there."""

    def __init__(self, message: str | None = None, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class _Undefined(StrictUndefined):
    """``StrictUndefined`` that, for a missing field of a tracked object, says which field."""

    __slots__ = ()

    def __init__(
        self, hint: str | None = None, obj: Any = missing, name: str | None = None,
        exc: type[UndefinedError] = UndefinedError,
    ) -> None:
        # Only a plain miss of a field or an index: the sandbox refusing an attribute passes its
        # own hint, and a list has no fields (``spec.ports.append`` is a method, not a CR field).
        if hint is None and (
            (isinstance(obj, _Tracked) and name is not None)
            or (isinstance(obj, _TrackedList) and isinstance(name, int))
        ):
            field = _join(obj._path, name)
            hint = f"{field} is not set"
            exc = functools.partial(_MissingField, field=field)  # type: ignore[assignment]
        super().__init__(hint, obj, name, exc)


def _context(parent: dict[str, Any], observed: Sequence[dict[str, Any]]) -> dict[str, Any]:
    metadata = parent.get("metadata") or {}
    by_kind: dict[str, dict[str, Any]] = {}
    for obj in observed:
        name = str((obj.get("metadata") or {}).get("name", ""))
        by_kind.setdefault(str(obj.get("kind", "")), {})[name] = obj
    children = _Tracked(by_kind, "children")

    def child(kind: str, name: str) -> Any:
        """The observed child of this kind and name, or None."""
        found = by_kind.get(kind, {}).get(name)
        return None if found is None else _track(found, f"child({kind!r}, {name!r})")

    return {
        "parent": _Tracked(parent, "parent"),
        "spec": _Tracked(parent.get("spec") or {}, "spec"),
        "metadata": _Tracked(metadata, "metadata"),
        "name": metadata.get("name", ""),
        "namespace": metadata.get("namespace") or "",
        "children": children,
        "child": child,
    }


# -- placement ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Owner:
    """The parent, as its children refer to it."""

    api_version: str
    kind: str
    name: str
    namespace: str | None  # None: cluster-scoped
    uid: str

    @classmethod
    def of(cls, kind: kinds.Kind, parent: Mapping[str, Any]) -> _Owner:
        metadata = parent.get("metadata")
        if parent.get("apiVersion") != kind.api_version or parent.get("kind") != kind.kind:
            raise RenderError(
                f"this kind folder serves {kind.kind} ({kind.api_version}), "
                f"not {parent.get('kind')} ({parent.get('apiVersion')})",
                file=str(kind.directory / kinds.KIND_FILE), field="parent",
            )
        if not isinstance(metadata, Mapping) or not _nonempty(metadata.get("name")):
            raise RenderError("the parent has no metadata.name", field="metadata.name")
        return cls(
            api_version=kind.api_version,
            kind=kind.kind,
            name=metadata["name"],
            namespace=metadata.get("namespace") or None,
            uid=metadata.get("uid") or NO_UID,
        )

    def reference(self) -> dict[str, Any]:
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "name": self.name,
            "uid": self.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }

    def labels(self, kind_name: str) -> dict[str, str]:
        labels = {MANAGED_BY_LABEL: MANAGED_BY_VALUE, KIND_LABEL: kind_name, PARENT_NAME_LABEL: self.name}
        if self.namespace is not None:
            labels[PARENT_NAMESPACE_LABEL] = self.namespace
        labels[PARENT_UID_LABEL] = self.uid
        return labels


def _nonempty(value: Any) -> bool:
    return isinstance(value, str) and bool(value)


def _describe(child: Mapping[str, Any]) -> str:
    meta = child.get("metadata") or {}
    where = f"{meta['namespace']}/" if meta.get("namespace") else ""
    return f"{child.get('kind')} {where}{meta.get('name')}"


def _place(
    document: Any, owner: _Owner, kind: kinds.Kind, is_namespaced: Callable[[str, str], bool],
    template: kinds.Template,
) -> dict[str, Any]:
    """Check a rendered document and give it its namespace, labels and owner reference."""
    file = str(template.path)
    if not isinstance(document, dict):
        raise RenderError(f"a rendered document must be a mapping, not {type(document).__name__}", file=file)
    for key in ("apiVersion", "kind"):
        if not _nonempty(document.get(key)):
            raise RenderError("a rendered document has no " + key, file=file, field=key)
    metadata = document.get("metadata")
    if not isinstance(metadata, dict) or not _nonempty(metadata.get("name")):
        raise RenderError(f"a rendered {document['kind']} has no metadata.name", file=file,
                          field="metadata.name")
    api_version, child_kind, name = document["apiVersion"], document["kind"], metadata["name"]
    what = f"{child_kind} {name}"
    for key, expected in (("namespace", str), ("labels", dict)):
        if key in metadata and not isinstance(metadata[key], expected):
            raise RenderError(f"{what}: metadata.{key} must be a {expected.__name__}", file=file,
                              field=f"metadata.{key}")
    if "ownerReferences" in metadata:
        raise RenderError(f"{what}: owner references are set by Stencil, not by templates", file=file,
                          field="metadata.ownerReferences")
    placement = kind.placement

    def refuse(message: str, field: str | None = None) -> PlacementError:
        return PlacementError(f"{what}: {message}", file=file, field=field)

    if group_of(api_version) == RBAC_GROUP and child_kind in RBAC_KINDS and not placement.rbac:
        raise refuse("RBAC objects are refused unless kind.yaml allows them (placement.rbac: true)")
    namespace: str | None = metadata.get("namespace") or None
    if not is_namespaced(api_version, child_kind):
        if not placement.cluster_scoped:
            raise refuse("cluster-scoped objects are refused unless kind.yaml allows them "
                         "(placement.clusterScoped: true)")
        if namespace is not None:
            raise refuse(f"{child_kind} is cluster-scoped and cannot have a namespace", "metadata.namespace")
        owned = owner.namespace is None  # a namespaced owner cannot own a cluster-scoped object
    else:
        if namespace is None:
            if owner.namespace is None:
                raise refuse("the parent is cluster-scoped, so its namespaced children must name "
                             "their namespace", "metadata.namespace")
            namespace = owner.namespace
        elif namespace != owner.namespace and "*" not in placement.namespaces and (
            namespace not in placement.namespaces
        ):
            allowed = ", ".join(placement.namespaces) or "none"
            raise refuse(f"namespace {namespace!r} is not allowed (placement.namespaces: {allowed}; "
                         "the parent's own namespace always is)", "metadata.namespace")
        # Owner references cannot cross namespaces; such children are tied to the parent by labels only.
        owned = owner.namespace is None or namespace == owner.namespace

    placed_meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        placed_meta["namespace"] = namespace
    placed_meta.update((k, v) for k, v in metadata.items() if k not in ("name", "namespace", "labels"))
    placed_meta["labels"] = {**metadata.get("labels", {}), **owner.labels(kind.name)}
    if owned:
        placed_meta["ownerReferences"] = [owner.reference()]
    rest = {k: v for k, v in document.items() if k not in ("apiVersion", "kind", "metadata")}
    return {"apiVersion": api_version, "kind": child_kind, "metadata": placed_meta, **rest}
