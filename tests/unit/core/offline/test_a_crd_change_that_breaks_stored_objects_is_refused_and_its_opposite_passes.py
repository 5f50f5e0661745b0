"""``crdchanges.compare``: a change of a version's schema that would make stored objects lose data or
no longer validate is refused at the field it is on, and the opposite change (what loosens the API)
passes; a new validation rule is a warning, a moved storage version a note, a version dropped while
stored a refusal."""

from __future__ import annotations

from typing import Any

import pytest

from engine.core.offline import crdchanges
from engine.core.offline.crdchanges import Finding

Schema = dict[str, Any]
STRING, INTEGER, NUMBER = {"type": "string"}, {"type": "integer"}, {"type": "number"}
INT_OR_STRING = {"x-kubernetes-int-or-string": True}


def obj(required: tuple[str, ...] = (), **fields: Schema) -> Schema:
    return {"type": "object", "properties": fields, **({"required": list(required)} if required else {})}


def crd(spec: Schema, *versions: tuple[str, bool, bool], stored: tuple[str, ...] | None = None) -> Schema:
    """A CRD whose versions (name, served, storage) all have the root schema ``{spec: spec}``."""
    schema = {"openAPIV3Schema": obj(spec=spec)}
    found: Schema = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {
            "group": "example.com",
            "scope": "Namespaced",
            "names": {"kind": "Widget", "plural": "widgets"},
            "versions": [
                {"name": name, "served": served, "storage": storage, "schema": schema}
                for name, served, storage in versions or [("v1", True, True)]
            ],
        },
    }
    if stored is not None:
        found["status"] = {"storedVersions": list(stored)}
    return found


def compare(before: Schema, after: Schema) -> list[Finding]:
    return crdchanges.compare(crd(before), crd(after))


def text(**markers: Any) -> Schema:
    return {"type": "string", **markers}


def integer(**markers: Any) -> Schema:
    return {"type": "integer", **markers}


def array(items: Schema, **markers: Any) -> Schema:
    return {"type": "array", "items": items, **markers}


def mapping(entries: Schema, **markers: Any) -> Schema:
    return {"type": "object", "additionalProperties": entries, **markers}


KEPT = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}

# (the wider spec, the narrower spec, the field the narrowing is refused at, words it says)
NARROWINGS = [
    ("a field removed", obj(a=STRING, b=STRING), obj(a=STRING), "spec.b", "removed"),
    ("a nested field removed", obj(a=obj(b=STRING, c=STRING)), obj(a=obj(b=STRING)), "spec.a.c", "prunes"),
    ("a dotted name removed", obj(m=obj(**{"a.b/c": STRING})), obj(m=obj()), 'spec.m["a.b/c"]', "removed"),
    ("number -> integer", obj(n=NUMBER), obj(n=INTEGER), "spec.n", "type number -> integer"),
    ("int-or-string -> integer", obj(p=INT_OR_STRING), obj(p=INTEGER), "spec.p", "stored string values"),
    ("int-or-string -> string", obj(p=INT_OR_STRING), obj(p=STRING), "spec.p", "stored integer values"),
    ("untyped -> object", obj(x={"x-kubernetes-preserve-unknown-fields": True}), obj(x=obj()),
     "spec.x", "type any"),
    ("items narrowed", obj(ports=array(obj(port=INT_OR_STRING))), obj(ports=array(obj(port=INTEGER))),
     "spec.ports[*].port", "int-or-string -> integer"),
    ("entries narrowed", obj(labels=mapping(INT_OR_STRING)), obj(labels=mapping(INTEGER)),
     "spec.labels.<key>", "int-or-string"),
    ("a map made an object", obj(labels=mapping(STRING)), obj(labels=obj(team=STRING)), "spec.labels",
     "no longer a map"),
    ("unknown fields pruned", obj(x=KEPT), obj(x={"type": "object"}), "spec.x", "no longer keeps unknown"),
    ("made required", obj(a=STRING), obj(("a",), a=STRING), "spec.a", "now required"),
    ("nested made required", obj(a=obj(b=STRING)), obj(a=obj(("b",), b=STRING)), "spec.a.b", "now required"),
    ("an enum narrowed", obj(t=text(enum=["a", "b"])), obj(t=text(enum=["a"])),
     "spec.t", 'enum value "b" removed'),
    ("an enum added", obj(t=STRING), obj(t=text(enum=["a"])), "spec.t", "an enum now"),
    ("maxLength lowered", obj(s=text(maxLength=10)), obj(s=text(maxLength=5)),
     "spec.s", "lowered from 10 to 5"),
    ("maxLength added", obj(s=STRING), obj(s=text(maxLength=5)), "spec.s", "maxLength 5 added"),
    ("maxItems lowered", obj(l=array(STRING, maxItems=3)), obj(l=array(STRING, maxItems=2)),
     "spec.l", "maxItems"),
    ("maxProperties lowered", obj(m=mapping(STRING, maxProperties=3)),
     obj(m=mapping(STRING, maxProperties=2)),
     "spec.m", "maxProperties lowered"),
    ("maximum lowered", obj(r=integer(maximum=20)), obj(r=integer(maximum=10)),
     "spec.r", "lowered from 20 to 10"),
    ("maximum made exclusive", obj(r=integer(maximum=10)), obj(r=integer(maximum=10, exclusiveMaximum=True)),
     "spec.r", "made exclusive"),
    ("minLength raised", obj(s=text(minLength=1)), obj(s=text(minLength=3)), "spec.s", "raised from 1 to 3"),
    ("minItems added", obj(l=array(STRING)), obj(l=array(STRING, minItems=1)), "spec.l", "minItems 1 added"),
    ("minimum raised", obj(r=integer(minimum=0)), obj(r=integer(minimum=1)), "spec.r", "raised from 0 to 1"),
    ("multipleOf added", obj(r=INTEGER), obj(r=integer(multipleOf=2)), "spec.r", "multipleOf 2"),
    ("a pattern added", obj(s=STRING), obj(s=text(pattern="^a")), "spec.s", "pattern '^a' added"),
    ("a format added", obj(s=STRING), obj(s=text(format="date-time")), "spec.s", "format date-time"),
    ("int64 -> int32", obj(r=integer(format="int64")), obj(r=integer(format="int32")),
     "spec.r", "int64 -> int32"),
    ("nullable removed", obj(s=text(nullable=True)), obj(s=STRING), "spec.s", "no longer nullable"),
    ("items made unique", obj(l=array(STRING)), obj(l=array(STRING, uniqueItems=True)), "spec.l", "unique"),
    ("a list made a set", obj(l=array(STRING)), obj(l=array(STRING, **{"x-kubernetes-list-type": "set"})),
     "spec.l", "list type atomic -> set"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("wider", "narrower", "path", "words"), [n[1:] for n in NARROWINGS], ids=[n[0] for n in NARROWINGS]
)
def test_a_narrowing_is_refused_at_its_field_and_the_widening_passes(
    wider: Schema, narrower: Schema, path: str, words: str
) -> None:
    [refused] = compare(wider, narrower)

    assert (refused.severity, refused.version, refused.path) == ("refused", "v1", path)
    assert words in refused.what, refused.what
    assert compare(narrower, wider) == []


@pytest.mark.parametrize(
    ("before", "after", "path"),
    [
        (obj(s={"type": "string", "pattern": "^a"}), obj(s={"type": "string", "pattern": "^b"}), "spec.s"),
        (obj(o=obj(a=STRING)), obj(o=STRING), "spec.o"),
        (obj(n=STRING), obj(n=INTEGER), "spec.n"),
        (obj(l={"type": "array", "items": STRING}), obj(l=STRING), "spec.l"),
    ],
    ids=["pattern changed", "object -> string", "string -> integer", "array -> string"],
)
def test_a_change_that_narrows_both_ways_is_refused_both_ways(
    before: Schema, after: Schema, path: str
) -> None:
    assert [f.path for f in crdchanges.refusals(compare(before, after))] == [path]
    assert path in [f.path for f in crdchanges.refusals(compare(after, before))]


def test_below_a_type_that_changed_nothing_more_is_said() -> None:
    [refused] = compare(obj(o=obj(a=STRING, b=INTEGER)), obj(o=STRING))

    assert (refused.path, refused.what.split(":")[0]) == ("spec.o", "type object -> string")


def test_a_field_removed_where_unknown_fields_are_kept_passes() -> None:
    kept = {"type": "object", "x-kubernetes-preserve-unknown-fields": True}

    assert compare(obj(x={**kept, "properties": {"a": STRING}}), obj(x=kept)) == []
    assert compare(obj(a=STRING), {**obj(), "x-kubernetes-preserve-unknown-fields": True}) == []


def test_a_field_removed_into_a_map_of_its_type_passes_and_into_a_narrower_map_is_refused() -> None:
    assert compare(obj(m=obj(a=STRING)), obj(m={"type": "object", "additionalProperties": STRING})) == []
    [refused] = compare(obj(m=obj(a=STRING)), obj(m={"type": "object", "additionalProperties": INTEGER}))
    assert refused.path == "spec.m.a" and "type string -> integer" in refused.what


def test_a_new_required_field_is_refused_unless_it_has_a_default() -> None:
    defaulted = {"type": "integer", "default": 1}

    [refused] = compare(obj(a=STRING), obj(("b",), a=STRING, b=STRING))
    assert refused.path == "spec.b" and refused.what.startswith("a new required field with no default")
    assert compare(obj(a=STRING), obj(a=STRING, b=STRING)) == []  # a new optional field

    assert compare(obj(a=STRING), obj(("b",), a=STRING, b=defaulted)) == []
    assert compare(obj(a=INTEGER), obj(("a",), a=defaulted)) == []


def test_a_new_validation_rule_is_a_warning_and_one_taken_away_says_nothing() -> None:
    ruled = {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= 0", "message": "at least 0"}]}

    [warning] = compare(obj(r=INTEGER), obj(r=ruled))

    assert (warning.severity, warning.path) == ("warning", "spec.r") and "self >= 0" in warning.what
    assert not crdchanges.refusals([warning])
    assert compare(obj(r=ruled), obj(r=INTEGER)) == []
    reworded = {**ruled, "x-kubernetes-validations": [{"rule": "self >= 0", "message": "0 or more"}]}
    assert compare(obj(r=ruled), obj(r=reworded)) == []


def test_formats_of_a_wider_number_pass() -> None:
    assert (
        compare(obj(r={"type": "integer", "format": "int32"}), obj(r={"type": "integer", "format": "int64"}))
        == []
    )
    assert compare(obj(r=INTEGER), obj(r={"type": "integer", "format": "int64"})) == []
    assert (
        compare(obj(r={"type": "number", "format": "float"}), obj(r={"type": "number", "format": "double"}))
        == []
    )


def test_a_version_dropped_while_stored_is_refused_and_points_to_migrate() -> None:
    installed = crd(obj(), ("v1alpha1", True, False), ("v1", True, True), stored=("v1alpha1", "v1"))

    [refused] = crdchanges.compare(installed, crd(obj(), ("v1", True, True)))

    assert (refused.severity, refused.version, refused.path) == ("refused", "v1alpha1", "")
    assert "status.storedVersions" in refused.what and "stencil migrate" in refused.what
    migrated = crd(obj(), ("v1alpha1", True, False), ("v1", True, True), stored=("v1",))
    [warning] = crdchanges.compare(migrated, crd(obj(), ("v1", True, True)))
    assert (warning.severity, warning.version) == ("warning", "v1alpha1")


def test_a_new_version_passes_and_a_moved_storage_version_is_a_note_on_migrate() -> None:
    before = crd(obj(a=STRING), ("v1", True, True), stored=("v1",))
    assert crdchanges.compare(before, crd(obj(a=STRING), ("v1", True, True), ("v2", True, False))) == []

    [note] = crdchanges.compare(before, crd(obj(a=STRING), ("v1", True, False), ("v2", True, True)))

    assert (note.severity, note.version) == ("note", "v2")
    assert "from v1 to v2" in note.what and "stencil migrate" in note.what


def test_a_version_no_longer_served_is_a_warning() -> None:
    before = crd(obj(), ("v1", True, False), ("v2", True, True))
    [warning] = crdchanges.compare(before, crd(obj(), ("v1", False, False), ("v2", True, True)))

    assert (warning.severity, warning.version, warning.what.split(":")[0]) == (
        "warning",
        "v1",
        "no longer served",
    )


def test_only_versions_of_the_same_name_are_compared() -> None:
    before = crd(obj(a=STRING, b=STRING), ("v1", True, True), stored=("v1",))
    after = crd(obj(a=STRING), ("v1", True, True), ("v2", True, False))
    after["spec"]["versions"][0]["schema"] = before["spec"]["versions"][0]["schema"]

    assert crdchanges.compare(before, after) == []  # v2 drops b: it is a new version


def test_a_changed_scope_is_refused() -> None:
    after = crd(obj())
    after["spec"]["scope"] = "Cluster"

    [refused] = crdchanges.compare(crd(obj()), after)

    assert refused.refused and "scope Namespaced -> Cluster" in refused.what


def test_refusals_come_first_and_the_text_says_to_add_a_version() -> None:
    ruled = {"type": "integer", "x-kubernetes-validations": [{"rule": "self >= 0"}]}
    findings = compare(obj(a=STRING, r=INTEGER), obj(r=ruled))

    assert [f.severity for f in findings] == ["refused", "warning"]
    report = crdchanges.Report("widgets.example.com", "the installed CRD", tuple(findings))
    lines = crdchanges.text(report)
    assert lines[0] == "API of widgets.example.com against the installed CRD: 1 refused, 1 warning"
    assert (
        lines[1]
        == "  refused: v1 spec.a: removed: the API server prunes it from every stored object it reads"
    )
    assert "add a new one" in lines[-1]
    assert crdchanges.text(crdchanges.Report("w", "x", ())) == [
        "API of w against x: no change stored objects would feel"
    ]
    said = crdchanges.as_json(report)
    assert (said["refused"], said["findings"][0]) == (
        1, {"severity": "refused", "version": "v1", "path": "spec.a", "what": findings[0].what}
    )  # fmt: skip
