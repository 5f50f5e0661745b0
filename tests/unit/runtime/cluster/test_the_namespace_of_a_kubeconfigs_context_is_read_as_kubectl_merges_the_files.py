"""``contexts.namespace``: the namespace of the context in use, read from the kubeconfig files in
kubectl's order, ``default`` where none is named."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from engine.runtime.cluster import contexts


def kubeconfig(path: Path, current: str | None, **namespaces: str | None) -> Path:
    config: dict[str, object] = {
        "contexts": [
            {"name": name, "context": {"cluster": "c", **({"namespace": ns} if ns else {})}}
            for name, ns in namespaces.items()
        ]
    }
    if current:
        config["current-context"] = current
    path.write_text(yaml.safe_dump(config))
    return path


def test_the_current_or_named_context_gives_its_namespace(tmp_path: Path) -> None:
    path = str(kubeconfig(tmp_path / "config", "dev", dev="team-a", ops="team-b", bare=None))
    assert contexts.namespace(path) == "team-a"
    assert contexts.namespace(path, "ops") == "team-b"
    assert contexts.namespace(path, "bare") == "default"
    assert contexts.namespace(path, "missing") == "default"


def test_kubeconfig_files_merge_first_current_context_and_first_definition(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = kubeconfig(tmp_path / "a", None, ops="from-a")
    second = kubeconfig(tmp_path / "b", "ops", ops="from-b")
    third = kubeconfig(tmp_path / "c", "dev", dev="from-c")
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join(map(str, [first, tmp_path / "missing", second, third])))
    assert contexts.namespace() == "from-a"  # ops is current (b), defined first in a
    assert contexts.namespace(None, "dev") == "from-c"


def test_an_unreadable_or_odd_kubeconfig_gives_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bad").write_text("contexts: [unclosed\n")
    (tmp_path / "odd").write_text("current-context: x\ncontexts: [7, {name: x, context: [list]}]\n")
    assert contexts.namespace(str(tmp_path / "bad")) == "default"
    assert contexts.namespace(str(tmp_path / "odd")) == "default"
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert contexts.files() == [tmp_path / ".kube" / "config"]
    assert contexts.namespace() == "default"
