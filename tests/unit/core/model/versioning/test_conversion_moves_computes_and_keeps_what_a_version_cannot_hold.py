"""Conversion by the rules of ``versions:``: a WebApp (``examples/webapp``) goes from its hub v1 to
v1alpha1 and back with every field where it was, what v1alpha1 cannot hold kept in an annotation,
and a v1alpha1 object to v1 by its renamed, moved and computed fields."""

from __future__ import annotations

import copy
import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import kinds
from engine.core.model.errors import KindError
from engine.core.model.versioning import conversion
from engine.core.model.versioning.conversion import CONVERSION_DATA, ConversionError

WEBAPP = Path(__file__).resolve().parents[5] / "examples" / "webapp"
V1, V1ALPHA1 = "examples.stencil.dev/v1", "examples.stencil.dev/v1alpha1"


def _webapp() -> conversion.Conversion:
    converting = kinds.load_kind(WEBAPP).conversion
    assert converting is not None
    return converting


def _hub(**spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": V1,
        "kind": "WebApp",
        "metadata": {"name": "shop", "namespace": "a", "uid": "u-1", "labels": {"team": "x"}},
        "spec": {"image": "registry:5000/shop:1.2", "replicas": 3, "port": 80, "tier": "backend", **spec},
        "status": {"address": "shop.a:80", "observedGeneration": 2},
    }


def test_a_hub_object_comes_back_from_the_old_version_unchanged() -> None:
    hub = _hub()
    old = _webapp().convert(copy.deepcopy(hub), V1ALPHA1)
    assert old["apiVersion"] == V1ALPHA1
    assert old["spec"] == {
        "repository": "registry:5000/shop",
        "tag": "1.2",
        "instances": 3,
        "container": {"port": 80},
    }
    assert old["status"] == hub["status"]
    # tier has no field in v1alpha1: it waits in the annotation, not in a field the server would prune.
    assert json.loads(old["metadata"]["annotations"][CONVERSION_DATA]) == {
        "v1": [[["spec", "tier"], "backend"]]
    }
    assert {k: v for k, v in old["metadata"].items() if k != "annotations"} == hub["metadata"]
    assert _webapp().convert(old, V1) == hub


def test_an_old_object_reaches_the_hub_by_its_renamed_moved_and_computed_fields() -> None:
    old = {
        "apiVersion": V1ALPHA1,
        "kind": "WebApp",
        "metadata": {"name": "legacy"},
        "spec": {"repository": "nginx", "instances": 2, "container": {"port": 8081}},
    }
    hub = _webapp().convert(old, V1)
    assert hub == {
        "apiVersion": V1,
        "kind": "WebApp",
        "metadata": {"name": "legacy"},
        "spec": {"image": "nginx", "replicas": 2, "port": 8081},
    }
    assert _webapp().convert(hub, V1ALPHA1) == old


def test_an_edit_made_at_the_old_version_wins_over_nothing_it_could_not_say() -> None:
    webapp = _webapp()
    old = webapp.convert(_hub(), V1ALPHA1)
    old["spec"]["instances"] = 7  # a client of v1alpha1 scales it
    hub = webapp.convert(old, V1)
    assert hub["spec"]["replicas"] == 7
    assert hub["spec"]["tier"] == "backend"  # kept through the version that has no tier
    assert CONVERSION_DATA not in hub["metadata"].get("annotations", {})


def test_the_same_version_is_the_object_itself() -> None:
    hub = _hub()
    assert _webapp().convert(hub, V1) == hub


@pytest.mark.parametrize(
    ("obj", "to", "said"),
    [
        ({"kind": "WebApp"}, V1, "no apiVersion"),
        (_hub(), "examples.stencil.dev/v2", "is not a version of this kind"),
        (_hub(), "other.dev/v1", "is not a version of this kind"),
        (
            {**_hub(), "metadata": {"name": "x", "annotations": {CONVERSION_DATA: "[1]"}}},
            V1ALPHA1,
            "not what conversion writes",
        ),
        (
            {
                **_hub(),
                "metadata": {
                    "name": "x",
                    "annotations": {CONVERSION_DATA: '{"v1": [[["metadata", "uid"], 1]]}'},
                },
            },
            V1ALPHA1,
            "not what conversion writes",
        ),
    ],
)
def test_what_cannot_be_converted_is_refused_whole(obj: dict[str, Any], to: str, said: str) -> None:
    with pytest.raises(ConversionError, match=said):
        _webapp().convert(obj, to)


def _kind(tmp_path: Path, convert: str) -> Path:
    (tmp_path / "kind.yaml").write_text(
        textwrap.dedent(
            """\
            apiVersion: stencil.dev/v1alpha1
            kind: StencilKind
            parent: {apiVersion: example.dev/v1, kind: Site}
            schema:
              spec:
                host: string
                port: integer
            versions:
              - name: v1alpha1
                schema:
                  spec:
                    address: string
                convert:
            """
        )
        + textwrap.indent(textwrap.dedent(convert), " " * 6)
    )
    (tmp_path / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ name }}'}\n"
    )
    return tmp_path


def _conversion(folder: Path) -> conversion.Conversion:
    converting = kinds.load_kind(folder).conversion
    assert converting is not None
    return converting


def _site(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "example.dev/v1", "kind": "Site", "metadata": {"name": "s"}, "spec": spec}


def test_a_rule_that_fails_names_its_line_and_no_half_converted_object_is_given(tmp_path: Path) -> None:
    folder = _kind(
        tmp_path,
        """\
        - up: {spec.host: "spec.address.split(':')[0]", spec.port: "spec.address.split(':')[1] | int"}
          down: {spec.address: "spec.host ~ ':' ~ (spec.port // 0)"}
        """,
    )
    converting = _conversion(folder)
    site = _site(host="h", port=1)
    with pytest.raises(ConversionError) as refused:
        converting.convert(site, "example.dev/v1alpha1")
    assert refused.value.line == 15 and refused.value.field == "versions[0].convert[0].down.spec.address"
    assert "ZeroDivisionError" in refused.value.message


def test_a_field_converted_twice_is_refused_at_its_line(tmp_path: Path) -> None:
    folder = _kind(
        tmp_path,
        """\
        - {field: spec.host, from: spec.address}
        - up: {spec.host: "spec.address"}
          down: {spec.address: "spec.host"}
        """,
    )
    with pytest.raises(
        KindError,
        match=r"spec.host \(the hub's\) is already converted by versions\[0\].convert\[0\].field",
    ) as refused:
        kinds.load_kind(folder)
    assert refused.value.line == 15


def test_a_mapping_that_does_not_invert_is_named_and_loses_nothing_kept_aside(tmp_path: Path) -> None:
    folder = _kind(
        tmp_path,
        """\
        - up: {spec.host: "spec.address.split(':')[0]"}
          down: {spec.address: "spec.host ~ ':' ~ spec.port"}
        """,
    )
    converting = _conversion(folder)
    site = _site(host="h", port=1)
    # The port does not come back from address (up forgets it) but is kept aside: nothing lost.
    assert converting.round_trip_losses(site) == []
    old = {
        "apiVersion": "example.dev/v1alpha1",
        "kind": "Site",
        "metadata": {"name": "s"},
        "spec": {"address": "h:1"},
    }
    assert converting.convert(converting.convert(old, "example.dev/v1"), "example.dev/v1alpha1") == old
    # Only what was kept aside brings the address back: up forgets the port, and lint says so.
    assert converting.round_trip_losses(old) == [
        ("v1alpha1", 'spec.address (through v1: "h:" without what was kept aside)')
    ]
    # Changed at v1alpha1 since: the address kept aside is not put back over what a client wrote.
    hub = converting.convert(old, "example.dev/v1")
    hub["spec"]["host"] = "g"
    assert converting.convert(hub, "example.dev/v1alpha1")["spec"] == {"address": "g:"}
