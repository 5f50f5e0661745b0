"""What every case of the hostile-input campaign shares: a kind folder to attack, and the one check.

The checks are the campaign's promise.  A case that must fail (``assert_fails_at``)
exits non-zero with one ``Error:`` line that names the place it expects: the
file and line, or the field, at fault (``stencil render`` may add one indented
line saying which CR it was rendering); exiting 0 fails it.  A case that must
succeed says so and checks what it printed.  Where either is fine
(``assert_clean``: a value that renders or is refused), a failure is still one
located line.  Never a traceback, never an exception that is not ``SystemExit``,
never an exception no command expected (the CLI words it in one line too, with
``UNEXPECTED_HINT``: a crash however politely put), and never longer than
``CASE_SECONDS`` (``within``).

The kind folder (``lab``) serves ``example.com/v1`` ``Web``; its CRD keeps
whatever ``spec.value`` holds, so every hostile value reaches the templates, and
types ``spec.replicas`` and ``spec.tag`` so the CRD's own checks are attacked too.
"""

from __future__ import annotations

import contextlib
import re
import signal
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

import yaml
from click.testing import CliRunner, Result

from engine.tools.cli import main
from engine.tools.cli._common import UNEXPECTED_HINT
from tests.unit import _crs

CASE_SECONDS = 20.0
API_VERSION = "example.com/v1"
KIND_YAML = f"""apiVersion: stencil.dev/v1alpha1
kind: StencilKind
parent:
  apiVersion: {API_VERSION}
  kind: Web
templates: [cm.yaml]
"""
TEMPLATE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ name }}-cm
data:
  value: {{ spec.value | default('none') | tojson }}
  text: "{{ spec.value | default('none') }}"
"""
SPEC_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "value": {"x-kubernetes-preserve-unknown-fields": True},
        "replicas": {"type": "integer", "format": "int32"},
        "tag": {"type": "string", "pattern": "^(a+)+$"},
    },
}


def crd(spec_schema: dict[str, Any] | None = None) -> dict[str, Any]:
    """The CRD of ``Web`` with ``spec_schema`` (default ``SPEC_SCHEMA``) for its spec, and a status
    that keeps what the engine writes (one that would prune it is a finding of its own)."""
    status = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
    schema = {"type": "object", "properties": {"spec": spec_schema or SPEC_SCHEMA, "status": status}}
    return _crs.definition("example.com", {"kind": "Web", "plural": "webs"}, schema)


@dataclass(frozen=True)
class Lab:
    """A kind folder, its CRDs folder and a place for CR files, all under one temporary folder."""

    root: Path

    @property
    def kind_dir(self) -> Path:
        return self.root / "templates" / "web"

    @property
    def crds_dir(self) -> Path:
        return self.root / "crds"

    def write(self, name: str, text: str | bytes) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path

    def cr(self, spec: str, *, name: str = "w", file: str = "cr.yaml") -> Path:
        """A CR file whose ``spec`` is the YAML text ``spec`` (indented under ``spec:`` here)."""
        body = "".join(f"  {line}\n" for line in spec.splitlines())
        return self.write(
            file, f"apiVersion: {API_VERSION}\nkind: Web\nmetadata:\n  name: {name}\nspec:\n{body}"
        )

    def render(self, *files: Path) -> Result:
        arguments = [str(self.kind_dir), "--crds", str(self.crds_dir)]
        return invoke(["render", *arguments, *(arg for f in files for arg in ("-f", str(f)))])

    def lint(self) -> Result:
        return invoke(["lint", str(self.kind_dir), "--crds", str(self.crds_dir)])


def lab(
    root: Path,
    *,
    template: str = TEMPLATE,
    kind_yaml: str = KIND_YAML,
    crd_text: str | None = None,
    example: str | None = None,
) -> Lab:
    """A ``Lab`` under ``root`` with the given template, kind.yaml and CRD file text."""
    made = Lab(root)
    made.write("templates/web/kind.yaml", kind_yaml)
    made.write("templates/web/cm.yaml", template)
    made.write("crds/web.yaml", crd_text if crd_text is not None else yaml.safe_dump(crd(), sort_keys=False))
    if example is not None:
        made.write("templates/web/examples/example.yaml", example)
    return made


class Outcome(Protocol):
    """What the checks read of a command's result: ``click.testing.Result``, or one from a child process."""

    @property
    def exit_code(self) -> int: ...

    @property
    def output(self) -> str: ...

    @property
    def exception(self) -> BaseException | None: ...


class CaseTooSlow(BaseException):
    """A case ran past ``CASE_SECONDS``: a BaseException, so no command's error handling can hide it."""


@contextlib.contextmanager
def within(seconds: float = CASE_SECONDS) -> Iterator[None]:
    """Fail the case if it runs longer than ``seconds`` (a hang is a failure, not a wait)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise CaseTooSlow(f"the case ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def invoke(arguments: Sequence[str], env: dict[str, str] | None = None) -> Result:
    """``stencil arguments`` run in-process, within ``CASE_SECONDS``."""
    with within():
        return CliRunner().invoke(main, list(arguments), env=env)


# Where a failure is: "file:line:" (and a field) as StencilError says them, a whole file ("path: "),
# or a field of the CR; anywhere in the line, since a command may say what it was doing first.
_LOCATED = re.compile(r"\S+:\d+: |\S*/\S+: |\b(spec|metadata|status|parent|templates)[.\[:]")


# Lines around the error that are not part of it: notes on stderr, the CR render was rendering,
# and click's usage hint on a bad option.
_ASIDES = ("note: ", "  (rendering ", "Usage: ", "Try '")


def error_lines(result: Outcome) -> list[str]:
    """The lines of a failed command's output that say what failed."""
    return [line for line in result.output.splitlines() if line.strip() and not line.startswith(_ASIDES)]


def assert_no_crash(result: Outcome) -> None:
    """No traceback, no exception but ``SystemExit``, and no exception the CLI did not expect."""
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert UNEXPECTED_HINT not in result.output, f"a crash, not an error: {result.output}"


def assert_clean(result: Outcome, *, located: bool = True) -> None:
    """A command that may succeed or fail: no crash, and a failure is one ``Error:`` line.

    ``located=False`` for failures that have no file to name (a namespace given with ``-n``).
    """
    assert_no_crash(result)
    if result.exit_code == 0:
        return
    lines = error_lines(result)
    assert len(lines) == 1, result.output
    assert lines[0].startswith(("Error: ", "error: ")), result.output
    if located:
        assert _LOCATED.search(lines[0]), lines[0]


def assert_fails_at(result: Outcome, *places: str) -> str:
    """A command that must fail: non-zero, one ``Error:`` line naming each of ``places``; the line."""
    assert result.exit_code != 0, f"expected an error naming {places}, the command succeeded: {result.output}"
    assert_clean(result, located=False)
    line = error_lines(result)[0]
    for place in places:
        assert place in line, f"{place!r} not named in: {line}"
    return line


def assert_succeeds(result: Outcome) -> list[dict[str, Any]]:
    """A command that must succeed: exit 0, no crash; the YAML documents it printed (notes aside)."""
    assert_no_crash(result)
    assert result.exit_code == 0, result.output
    printed = "\n".join(line for line in result.output.splitlines() if not line.startswith("note: "))
    return [document for document in yaml.safe_load_all(printed) if document is not None]


def assert_lint_clean(result: Outcome) -> None:
    """``stencil lint``'s promise: findings, each at its file and line, or none; no traceback."""
    assert_no_crash(result)
    assert result.exit_code in (0, 1), result.output
    findings = [line for line in result.output.splitlines() if ": error: " in line or ": warning: " in line]
    assert all(re.match(r"^\S+?(:\d+)*: (error|warning): ", line) for line in findings), result.output
