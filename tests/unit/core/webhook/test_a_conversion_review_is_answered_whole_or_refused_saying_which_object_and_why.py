"""A ConversionReview (``apiextensions.k8s.io/v1``) is answered with every object converted, in
order, under the request's uid; one object that cannot be converted (a kind not served with
versions, a version the kind does not have, a rule that fails, a kind broken now) fails the whole
review, saying which object and why, with no converted object at all; and a body that is no
review the webhook can answer is a 400 that says what is wrong."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from engine.core.model import kinds
from engine.core.model.versioning.conversion import Conversion, ConversionError
from engine.core.webhook import review

WEBAPP = Path(__file__).resolve().parents[4] / "examples" / "webapp"
GROUP = "examples.stencil.dev"
V1, V1ALPHA1 = f"{GROUP}/v1", f"{GROUP}/v1alpha1"


def _webapp() -> Conversion:
    converting = kinds.load_kind(WEBAPP).conversion
    assert converting is not None
    return converting


def _lookup(conversion: Conversion, kind: str = "WebApp") -> review.Lookup:
    return lambda group, asked: conversion if (group, asked) == (conversion.group, kind) else None


def _old(name: str, repository: str = "nginx", tag: str = "1.27", instances: int = 2) -> dict[str, Any]:
    return {
        "apiVersion": V1ALPHA1,
        "kind": "WebApp",
        "metadata": {"name": name, "namespace": "shop", "uid": f"uid-{name}"},
        "spec": {"repository": repository, "tag": tag, "instances": instances, "container": {"port": 80}},
    }


def _body(objects: list[Any], desired: str = V1, uid: str = "r-1", **review_fields: Any) -> bytes:
    sent = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "ConversionReview",
        "request": {"uid": uid, "desiredAPIVersion": desired, "objects": objects},
        **review_fields,
    }
    return json.dumps(sent).encode()


def test_every_object_is_converted_in_order_under_the_requests_uid() -> None:
    code, answer = review.answer(_body([_old("a"), _old("b", "redis", "7", 3)]), _lookup(_webapp()))

    assert code == 200
    assert (answer["apiVersion"], answer["kind"]) == ("apiextensions.k8s.io/v1", "ConversionReview")
    response = answer["response"]
    assert response["uid"] == "r-1" and response["result"] == {"status": "Success"}
    converted = response["convertedObjects"]
    assert [o["metadata"]["name"] for o in converted] == ["a", "b"]
    assert [o["apiVersion"] for o in converted] == [V1, V1]
    assert converted[0]["spec"] == {"image": "nginx:1.27", "replicas": 2, "port": 80}
    assert converted[1]["spec"] == {"image": "redis:7", "replicas": 3, "port": 80}
    assert converted[0]["metadata"] == _old("a")["metadata"]  # uid and name untouched


def test_no_objects_are_no_converted_objects() -> None:
    code, answer = review.answer(_body([]), _lookup(_webapp()))

    assert code == 200 and answer["response"]["convertedObjects"] == []


def _failed(answer: dict[str, Any]) -> str:
    response = answer["response"]
    assert response["uid"] == "r-1"
    assert response["result"]["status"] == "Failure"
    assert "convertedObjects" not in response  # never half a list
    message: str = response["result"]["message"]
    return message


def test_an_object_of_a_kind_not_served_with_versions_fails_the_whole_review_naming_it() -> None:
    stranger = {**_old("c"), "apiVersion": "other.dev/v1", "kind": "Gadget"}

    code, answer = review.answer(_body([_old("a"), stranger, _old("b")]), _lookup(_webapp()))

    assert code == 200
    message = _failed(answer)
    assert message.startswith("cannot convert objects[1] (Gadget shop/c) to examples.stencil.dev/v1: ")
    assert "serves no kind Gadget of other.dev with versions" in message


def test_a_version_the_kind_does_not_have_fails_the_review() -> None:
    code, answer = review.answer(_body([_old("a")], desired=f"{GROUP}/v9"), _lookup(_webapp()))

    assert code == 200
    message = _failed(answer)
    assert "objects[0] (WebApp shop/a)" in message
    assert "examples.stencil.dev/v9 is not a version of this kind" in message


def test_an_object_of_a_version_the_kind_does_not_have_fails_the_review() -> None:
    unknown = {**_old("a"), "apiVersion": f"{GROUP}/v0"}

    code, answer = review.answer(_body([unknown]), _lookup(_webapp()))

    assert code == 200 and "examples.stencil.dev/v0 is not a version of this kind" in _failed(answer)


def test_a_rule_that_fails_fails_the_review_with_its_field(tmp_path: Path) -> None:
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
                  - up: {spec.host: "spec.address", spec.port: "1"}
                    down: {spec.address: "spec.host ~ ':' ~ (spec.port // 0)"}
            """
        )
    )
    (tmp_path / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: '{{ name }}'}\n"
    )
    site = kinds.load_kind(tmp_path).conversion
    assert site is not None
    fine = {"apiVersion": "example.dev/v1alpha1", "kind": "Site", "metadata": {"name": "x"}, "spec": {}}
    failing = {"apiVersion": "example.dev/v1", "kind": "Site", "metadata": {"name": "y"}, "spec": {"port": 1}}

    body = _body([fine, failing], desired="example.dev/v1alpha1")

    code, answer = review.answer(body, _lookup(site, "Site"))

    assert code == 200
    message = _failed(answer)
    assert message.startswith("cannot convert objects[1] (Site y) to example.dev/v1alpha1: ")
    assert "kind.yaml:15: versions[0].convert[0].down.spec.address: " in message
    assert "ZeroDivisionError" in message


def test_a_kind_the_lookup_says_cannot_convert_now_fails_the_review_with_its_reason() -> None:
    def broken(group: str, kind: str) -> Conversion | None:
        raise ConversionError("the kind webapp is broken and was never loaded whole")

    code, answer = review.answer(_body([_old("a")]), broken)

    assert code == 200 and "webapp is broken and was never loaded whole" in _failed(answer)


REVIEW = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"}


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"{not json", "the body is not JSON"),
        (b"\xff\xfe", "the body is not JSON"),
        (b"", "the body is not JSON"),
        (b"[1, 2]", "not a JSON object but an array"),
        (json.dumps(REVIEW).encode(), "no request"),
        (json.dumps({**REVIEW, "request": {"objects": []}}).encode(), "request has no uid"),
        (
            json.dumps({"apiVersion": "apiextensions.k8s.io/v1beta1", "kind": "ConversionReview"}).encode(),
            'its apiVersion is "apiextensions.k8s.io/v1beta1"',
        ),
    ],
)
def test_a_body_that_is_no_review_is_a_400_status_saying_why(body: bytes, said: str) -> None:
    code, answer = review.answer(body, _lookup(_webapp()))

    assert code == 400
    assert (answer["kind"], answer["status"], answer["code"]) == ("Status", "Failure", 400)
    assert said in answer["message"]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (_body([_old("a")], desired=""), "has no desiredAPIVersion"),
        (_body("not a list"), "has no list of objects"),  # type: ignore[arg-type]
        (_body([_old("a"), "b"]), "objects[1] is not an object but a string"),
        (_body([_old("a")], kind="AdmissionReview"), 'its kind "AdmissionReview"'),
    ],
)
def test_a_review_with_a_uid_but_not_answerable_is_a_400_review_saying_why(body: bytes, said: str) -> None:
    code, answer = review.answer(body, _lookup(_webapp()))

    assert code == 400
    assert answer["kind"] == "ConversionReview" and said in _failed(answer)
