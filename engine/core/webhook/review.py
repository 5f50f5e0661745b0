"""A ConversionReview answered: every object converted to the version asked, or none.

The API server asks the engine to convert objects of a kind with ``versions:``
(``engine.core.model.versioning``) whenever it reads or writes one at a version other than the
stored one: it POSTs a ``ConversionReview`` (``apiextensions.k8s.io/v1``) whose request holds a
uid, the ``desiredAPIVersion`` and the ``objects``, and expects the same review back with a
response: the uid, a result, and on success the ``convertedObjects``, one for each object, in
order.  ``answer`` is that exchange as a function of the request's bytes and of the kinds'
conversions now (``Lookup``), and returns the HTTP status and the body to send:

- every object converted: 200, ``result.status: Success`` and ``convertedObjects``;
- an object that cannot be converted (its kind is not one the engine serves with versions, the
  version asked or its own is not one of the kind's, a mapping's rule fails): 200 and
  ``result.status: Failure`` with a message that names the object (its index, kind, namespace
  and name) and why (a rule by its kind.yaml, line and field), and no ``convertedObjects`` at
  all: the API server then fails the client's request, and never stores or returns a
  half-converted list;
- a body that is not a ConversionReview the engine can answer (not JSON, not an object, another
  apiVersion or kind, no request, uid, desiredAPIVersion or objects): 400, with the review's
  uid and a Failure result where the uid is known, else a ``Status`` that says what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from engine.core.model import apis
from engine.core.model.errors import StencilError
from engine.core.model.versioning.conversion import Conversion, ConversionError

API_VERSION = "apiextensions.k8s.io/v1"
KIND = "ConversionReview"
OK, BAD_REQUEST = 200, 400

# A kind's conversion by its parent's (group, kind); None for a kind the engine does not serve
# with versions.  It may raise ConversionError to say why a kind it knows cannot convert now.
Lookup = Callable[[str, str], Conversion | None]
Answer = tuple[int, dict[str, Any]]


class BadReview(Exception):
    """The body is not a ConversionReview this webhook answers; ``uid`` if it got that far."""

    def __init__(self, message: str, uid: str | None = None) -> None:
        super().__init__(message)
        self.message, self.uid = message, uid


def answer(body: bytes, lookup: Lookup) -> Answer:
    """The HTTP status and body that answer the ConversionReview ``body`` (the module says how)."""
    try:
        uid, desired, objects = read(body)
    except BadReview as bad:
        return BAD_REQUEST, (failure(bad.uid, bad.message) if bad.uid else status(bad.message))
    try:
        converted = [convert(obj, index, desired, lookup) for index, obj in enumerate(objects)]
    except ConversionError as failed:
        return OK, failure(uid, failed.message)
    return OK, reviewed(uid, {"result": {"status": "Success"}, "convertedObjects": converted})


def read(body: bytes) -> tuple[str, str, list[dict[str, Any]]]:
    """The request's uid, desired apiVersion and objects, or ``BadReview`` saying what is wrong."""
    try:
        review = json.loads(body)
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise BadReview(f"the body is not JSON: {error}") from None
    if not isinstance(review, dict):
        raise BadReview(f"the body is not a JSON object but {_json_type(review)}")
    request = review.get("request")
    found = request.get("uid") if isinstance(request, dict) else None
    uid = found if isinstance(found, str) and found else None
    said = (review.get("apiVersion"), review.get("kind"))
    if said != (API_VERSION, KIND):
        raise BadReview(
            f"the body is not a {KIND} of {API_VERSION}: its apiVersion is {_said(said[0])} and its "
            f"kind {_said(said[1])} (the CRD's conversionReviewVersions must be [v1])",
            uid,
        )
    if not isinstance(request, dict):
        raise BadReview(f"the {KIND} has no request")
    if uid is None:
        raise BadReview(f"the {KIND}'s request has no uid")
    desired = request.get("desiredAPIVersion")
    if not isinstance(desired, str) or not desired:
        raise BadReview(f"the {KIND}'s request has no desiredAPIVersion", uid)
    objects = request.get("objects")
    if not isinstance(objects, list):
        raise BadReview(f"the {KIND}'s request has no list of objects", uid)
    for index, obj in enumerate(objects):
        if not isinstance(obj, dict):
            raise BadReview(f"objects[{index}] is not an object but {_json_type(obj)}", uid)
    return uid, desired, objects


def convert(obj: dict[str, Any], index: int, desired: str, lookup: Lookup) -> dict[str, Any]:
    """``obj`` (``objects[index]``) at ``desired``, or ``ConversionError`` naming it and saying why."""
    try:
        api_version, kind = obj.get("apiVersion"), obj.get("kind")
        if not isinstance(api_version, str) or not api_version or not isinstance(kind, str) or not kind:
            raise ConversionError("it has no apiVersion and kind")
        group = apis.group_of(api_version)
        conversion = lookup(group, kind)
        if conversion is None:
            served = group or "the core group"
            raise ConversionError(f"this engine serves no kind {kind} of {served} with versions")
        return conversion.convert(obj, desired)
    except StencilError as failed:  # a rule's own error (its budget, a bad value) included
        # A rule's failure says its kind.yaml, line and field, as ``stencil lint`` does.
        raise ConversionError(f"cannot convert {_named(obj, index)} to {desired}: {failed}") from None


def failure(uid: str | None, message: str) -> dict[str, Any]:
    return reviewed(uid, {"result": {"status": "Failure", "message": message}})


def reviewed(uid: str | None, response: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": API_VERSION, "kind": KIND, "response": {"uid": uid, **response}}


def status(message: str) -> dict[str, Any]:
    """A ``metav1.Status`` of a request that is not a review: what the API server logs."""
    return {
        "apiVersion": "v1",
        "kind": "Status",
        "status": "Failure",
        "reason": "BadRequest",
        "code": BAD_REQUEST,
        "message": message,
    }


def _named(obj: dict[str, Any], index: int) -> str:
    """``objects[3] (WebApp shop/web)``: which object, as a person finds it."""
    found = obj.get("metadata")
    metadata: dict[str, Any] = found if isinstance(found, dict) else {}
    name = metadata.get("name") or (f"{metadata['generateName']}…" if metadata.get("generateName") else "")
    namespace = metadata.get("namespace")
    where = f"{namespace}/{name}" if namespace and name else name or "(no name)"
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) and obj.get("kind") else "object"
    return f"objects[{index}] ({kind} {where})"


def _said(value: Any) -> str:
    return json.dumps(value) if value is not None else "nothing"


def _json_type(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return "null" if value is None else names.get(type(value), type(value).__name__)
