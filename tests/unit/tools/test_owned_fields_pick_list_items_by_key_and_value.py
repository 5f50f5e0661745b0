"""``owned`` reads a fieldsV1 set: ``k:`` picks list items by their keys, ``v:`` set items by
value, and a field named with nothing under it is kept whole."""

from __future__ import annotations

from engine.tools import kindtest


def test_owned_fields_pick_list_items_by_key_and_value() -> None:
    value = {
        "ports": [
            {"port": 80, "protocol": "TCP", "name": "http", "nodePort": 30080},
            {"port": 80, "protocol": "UDP", "name": "quic"},
        ],
        "finalizers": ["a", "b"],
        "args": ["--x", "--y"],
        "other": 1,
    }
    fields = {
        "f:ports": {'k:{"port":80,"protocol":"TCP"}': {".": {}, "f:port": {}, "f:name": {}}},
        "f:finalizers": {'v:"b"': {}},
        "f:args": {},
    }

    kept = kindtest.owned(value, fields)

    assert kept == {"ports": [{"port": 80, "name": "http"}], "finalizers": ["b"], "args": ["--x", "--y"]}
