"""The chart's roles for the kinds' users are exactly what ``stencil rbac --user-roles`` derives
from the kinds it installs (one source: ``rbac.user_roles``, through files/user-roles.yaml),
each labelled to aggregate into the built-in role of its name; ``kinds.only`` narrows them and
``rbac.userRoles=false`` leaves them out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.core.model import kinds
from engine.core.offline import rbac
from tests.unit._chart import FULLNAME, of_kind, render

ROOT = Path(__file__).resolve().parents[3]


def users(documents: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        name: role
        for name, role in of_kind(documents, "ClusterRole").items()
        if any(
            label.startswith("rbac.authorization.k8s.io/aggregate-to-")
            for label in role["metadata"]["labels"]
        )
    }


def test_chart_installs_what_stencil_rbac_derives() -> None:
    loaded, broken = kinds.load_kinds(ROOT / "templates")
    assert not broken
    derived = rbac.user_clusterroles(
        rbac.user_roles(loaded.values(), rbac.offline_resources(ROOT / "crds", loaded.values())), FULLNAME
    )

    installed = users(render())

    assert sorted(installed) == sorted(d["metadata"]["name"] for d in derived)
    assert len(installed) == 3 * len(loaded)
    for document in derived:
        role = installed[document["metadata"]["name"]]
        assert role["rules"] == document["rules"]
        assert document["metadata"]["labels"].items() <= role["metadata"]["labels"].items()


def test_kinds_only_narrows_them_and_the_toggle_removes_them() -> None:
    narrowed = users(render("kinds.only={deploywebservice}"))
    assert sorted(narrowed) == [f"{FULLNAME}-deploywebservice-{role}" for role in ("admin", "edit", "view")]

    assert users(render("rbac.userRoles=false")) == {}
