"""Each example of a ``stencil test`` run gets a namespace of its own, named after its kind and
example: a DNS label, different from every other example's and from the cluster's own, and the
same on every run."""

from __future__ import annotations

import re

from engine.tools import isolation

LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")


def test_each_example_gets_a_namespace_of_its_own() -> None:
    examples = [
        ("web", "nginx"),
        ("web", "Nginx"),
        ("tenant", "a" * 80),
        ("tenant", "a" * 81),
        ("kube", "system"),
    ]
    # kube/system must not become kube-system, the cluster's own

    names = isolation.namespace_names(examples)

    assert len(set(names)) == len(examples)
    for name in names:
        assert LABEL.fullmatch(name) and len(name) <= isolation.MAX_LABEL, name
    assert names[0].startswith("web-nginx-")
    assert "kube-system" not in names
    assert names == isolation.namespace_names(examples)


def test_a_name_already_taken_gets_another() -> None:
    first = isolation.namespace_names([("web", "nginx")])[0]

    assert len(set(isolation.namespace_names([("web", "nginx"), ("web", "nginx")]))) == 2
    assert isolation.namespace_names([("web", "nginx"), ("web", "nginx")])[0] == first
