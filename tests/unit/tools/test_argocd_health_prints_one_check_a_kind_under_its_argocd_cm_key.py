"""``stencil argocd-health`` prints, for every kind, the ``argocd-cm`` key Argo CD reads a health check
from (``resource.customizations.health.<group>_<Kind>``) holding the engine's Lua: blocks closed,
and the condition types the engine writes.  (Running it is the live tests' job, in Argo CD's VM.)"""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from click.testing import CliRunner

from engine.core.decisions import progress, status
from engine.core.model import apis, kinds
from engine.tools import argocd, cli

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


def printed(*args: str) -> dict[str, str]:
    result = CliRunner().invoke(cli.main, ["argocd-health", *args])
    assert result.exit_code == 0, result.output
    data = yaml.safe_load(result.stdout)
    assert isinstance(data, dict)
    return data


def test_every_kind_gets_the_check_under_its_group_and_kind() -> None:
    loaded, _ = kinds.load_kinds(TEMPLATES)

    data = printed("--templates", str(TEMPLATES))

    expected = {f"{argocd.HEALTH_KEY}{apis.group_of(k.api_version)}_{k.kind}" for k in loaded.values()}
    assert set(data) == expected
    assert set(data.values()) == {argocd.health_lua()}


def test_a_kind_folder_given_gets_only_its_own() -> None:
    kind = kinds.load_kind(TEMPLATES / "network")

    assert list(printed(str(TEMPLATES / "network"))) == [argocd.health_key(kind.api_version, kind.kind)]


def test_the_lua_closes_every_block_and_reads_the_engines_conditions() -> None:
    lua = argocd.health_lua()
    code = re.sub(r'"[^"\n]*"|--[^\n]*', "", lua)  # strings and comments say nothing of blocks
    words = re.findall(r"[A-Za-z_]+", code)

    opened = sum(words.count(w) for w in ("function", "if", "for", "while"))
    assert opened == words.count("end") and words[-2:] == ["return", "hs"]
    for type_ in (status.READY, progress.STALLED, progress.RECONCILING):
        assert f'found["{type_}"]' in lua
    assert {"Healthy", "Degraded", "Progressing"} <= set(re.findall(r'"([A-Za-z]+)"', lua))
