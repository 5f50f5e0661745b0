"""``stencil tree`` prints a header and one aligned row an object, each under the parent with ``├──``,
the last with ``└──``; its DOT and Mermaid pictures have one node an object, coloured by its health,
and an arrow from the parent to each."""

from __future__ import annotations

from engine.core.offline import family, pictures
from tests.unit import _pictures

FOUND = [
    family.Member(
        0, "Web/web", "shop", "Ready=False", "ChildrenNotReady: Deployment web: 0/2 replicas available"
    ),
    family.Member(1, "Deployment/web", "shop", "InProgress", "0/2 replicas available", "deployment"),
    family.Member(1, "Service/web-service", "shop", "Current", "ready", "service"),
    family.Member(1, "ConfigMap/shared", "shop", "Missing", "not found", "references.config"),
]


def test_rows_are_aligned_with_branches() -> None:
    assert family.text(FOUND).splitlines() == [
        "NAMESPACE  NAME                                      HEALTH       REASON",
        "shop       Web/web                                   Ready=False  " + FOUND[0].reason,
        "shop       ├── Deployment/web [deployment]           InProgress   0/2 replicas available",
        "shop       ├── Service/web-service [service]         Current      ready",
        "shop       └── ConfigMap/shared [references.config]  Missing      not found",
    ]


def test_pictures_have_a_node_an_object_and_an_arrow_from_the_parent() -> None:
    picture = family.picture(FOUND)
    dot, mermaid = pictures.dot(picture), pictures.mermaid(picture)

    names = {member.what for member in FOUND}
    assert {lines[0] for lines in _pictures.dot_nodes(dot).values()} == names
    assert {lines[0] for lines in _pictures.mermaid_nodes(mermaid).values()} == names
    arrows = {("Web/web", member.what, "") for member in FOUND[1:]}
    assert _pictures.dot_edges(dot) == arrows == _pictures.mermaid_edges(mermaid)
    assert [tone for tone in (member.tone for member in FOUND)] == ["waiting", "waiting", "ok", "missing"]
    assert 'fillcolor="#c8e6c9"' in dot.splitlines()[6]  # the Service, Current, is green
