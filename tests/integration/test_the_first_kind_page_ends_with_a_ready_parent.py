"""docs/first-kind.md followed on a real control plane, from the files it has a newcomer write:
`stencil test --update`, then `stencil test`, pass and print what the page shows (each on a plane of
its own, as the command starts one); and what `stencil dev` does once its plane is up, done on the
shared plane, brings the page's parent to Ready, printing the lines the page shows.  Numbers (times,
a timestamp) may differ from the page's.  The offline commands of the page are followed in
tests/unit/test_the_first_kind_page_prints_what_its_commands_print.py."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from engine.runtime.cluster.kube import Kube
from engine.tools.cli.trying import dev
from tests import _walkthrough
from tests.integration._engine import ROOT, eventually

pytestmark = [pytest.mark.cluster, pytest.mark.nodes]

PAGE = ROOT / "docs" / "first-kind.md"


def _commands(verb: str) -> list[_walkthrough.Command]:
    return [command for command in _walkthrough.read(PAGE).commands if command.argv[1] == verb]


def test_stencil_test_as_the_page_runs_it_passes_and_prints_what_the_page_shows(tmp_path: Path) -> None:
    _walkthrough.write(_walkthrough.read(PAGE), tmp_path)
    commands = _commands("test")
    assert [command.argv[2:] for command in commands] == [("--update",), ()]

    for command in commands:  # --update writes the golden file the second run compares with
        exit_code, printed = _walkthrough.run(command, tmp_path)

        assert exit_code == 0, printed
        assert _walkthrough.difference(command, printed, numbers_vary=True) == ""


def test_stencil_dev_brings_the_pages_parent_to_ready_saying_what_the_page_shows(
    tmp_path: Path, kube: Kube, namespace: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _walkthrough.write(_walkthrough.read(PAGE), tmp_path)
    [command] = _commands("dev")
    assert command.text.endswith("| cat")  # piped, dev prints its lines, not its live table
    said: list[str] = []

    def printed() -> str:  # as `stencil dev` prints it into the page's namespace, `default`
        said.append(capsys.readouterr().out)
        return "".join(said).replace(f" {namespace}/", " default/")

    def shown_as_on_the_page() -> bool:
        return _walkthrough.difference(command, printed(), numbers_vary=True) == ""

    engine = dev.serve(kube, tmp_path / "templates", tmp_path / "crds", namespace)
    stop = threading.Event()
    watcher = threading.Thread(target=dev.watch_lines, args=(engine, stop))
    watcher.start()
    try:
        eventually(shown_as_on_the_page, timeout=120, what="the lines the page shows")
    except AssertionError:
        pytest.fail(_walkthrough.difference(command, printed(), numbers_vary=True))
    finally:
        stop.set()
        watcher.join()
        engine.stop()
