"""``stencil test --update`` writes a golden file from two runs of the example: each value the two
runs' children differ on (a clusterIP or a token a template copied, a nodePort, a child named
from a hash) is written ``${ANY}``, whole, and the values they agree on as they are.  A mark
narrowed by hand that both runs still match is kept; the file then passes for a third run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.tools import kindtest
from engine.tools.kindtest import golden


def children(ip: str, port: int, suffix: str) -> list[dict[str, Any]]:
    """One run's children in their golden form."""
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": "web-endpoint", "namespace": "${NAMESPACE}"},
            "data": {"url": f"http://{ip}:80", "replicas": "2"},
        },
        {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": "web", "namespace": "${NAMESPACE}"},
            "spec": {"type": "NodePort", "ports": [{"port": 80, "nodePort": port}]},
        },
        {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": f"web-{suffix}", "namespace": "${NAMESPACE}"},
            "type": "Opaque",
        },
    ]


def test_update_writes_any_for_each_value_two_runs_of_an_example_differ_on(tmp_path: Path) -> None:
    file = tmp_path / "web.children.yaml"
    first, second = children("10.96.12.7", 30417, "3f9a2c"), children("10.96.200.3", 31874, "77e0b1")

    golden.check(file, first, update=True, second=second)

    written = file.read_text()
    assert "url: ${ANY}\n" in written and "replicas: '2'\n" in written
    assert "nodePort: ${ANY}\n" in written and "port: 80\n" in written
    assert "name: ${ANY}\n" in written and "type: Opaque\n" in written
    assert "10.96" not in written and "30417" not in written and "3f9a2c" not in written
    third = children("10.96.5.5", 32001, "0b1c2d")
    assert golden.check(file, third, update=False)[0] == []


def test_a_mark_narrowed_by_hand_is_kept(tmp_path: Path) -> None:
    file = tmp_path / "web.children.yaml"
    first, second = children("10.96.12.7", 30417, "3f9a2c"), children("10.96.200.3", 31874, "77e0b1")
    narrowed = children("10.96.12.7", 30417, "${ANY}")
    file.write_text(kindtest.golden_text(narrowed))

    golden.check(file, first, update=True, second=second)

    assert "name: web-${ANY}\n" in file.read_text()
