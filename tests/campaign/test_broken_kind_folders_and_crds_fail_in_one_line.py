"""Class 7 and broken kind folders: a CRD beside the kind that breaks the CRD format, a kind.yaml or
template broken in any way, and patterns that backtrack make ``stencil render`` and ``stencil lint``
fail in one located line (lint: findings at their lines), never crash or hang."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.campaign import _hostile

SPEC = ("spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec")


def changed(change: Callable[[dict[str, Any]], None]) -> str:
    """The lab's CRD text with ``change`` made to its data."""
    crd = copy.deepcopy(_hostile.crd())
    change(crd)
    return yaml.safe_dump(crd, sort_keys=False)


def spec_of(crd: dict[str, Any]) -> dict[str, Any]:
    node: Any = crd
    for part in SPEC:
        node = node[part]
    return dict(node) and node


def deep_properties(depth: int) -> Callable[[dict[str, Any]], None]:
    def change(crd: dict[str, Any]) -> None:
        schema: dict[str, Any] = {"type": "string"}
        for _ in range(depth):
            schema = {"type": "object", "properties": {"a": schema}}
        spec_of(crd)["properties"]["deep"] = schema

    return change


def setting(key: str, value: Any, field: str = "value") -> Callable[[dict[str, Any]], None]:
    def change(crd: dict[str, Any]) -> None:
        spec_of(crd)["properties"][field][key] = value

    return change


SCHEMA = "spec.versions[0].schema.openAPIV3Schema.properties.spec"
TAG, REPLICAS = f"{SCHEMA}.properties.tag", f"{SCHEMA}.properties.replicas"
# A CRD the API server takes, with a rule cel-python cannot read: the CR renders, the rule is a note.
UNCHECKED_RULE = "UNCHECKED_RULE"
# A CRD the API server takes as it is: the CR renders, and the CRD is in force.
IN_FORCE = "IN_FORCE"

# Each CRD, and what it gives: where its error is in crds/web.yaml ("line: field:"), or one of the above.
CRDS: dict[str, tuple[str, str]] = {
    "spec-a-list": (changed(lambda crd: crd.update(spec=[crd["spec"]])), "5: spec: "),
    "versions-empty": (changed(lambda crd: crd["spec"].update(versions=[])), "11: spec.versions: "),
    "versions-a-string": (changed(lambda crd: crd["spec"].update(versions="v1")), "11: spec.versions: "),
    "names-missing": (
        changed(lambda crd: crd["spec"].pop("names")),
        "5: spec: missing required field 'names'",
    ),
    "scope-unknown": (changed(lambda crd: crd["spec"].update(scope="Galaxy")), "10: spec.scope: "),
    "schema-a-string": (
        changed(lambda crd: crd["spec"]["versions"][0]["schema"].update(openAPIV3Schema="object")),
        "16: spec.versions[0].schema.openAPIV3Schema: ",
    ),
    "type-misspelt": (changed(setting("type", "strnig", "tag")), f"28: {TAG}.type: "),
    "type-a-list": (changed(setting("type", ["string"], "tag")), f"28: {TAG}.type: "),
    "pattern-lookbehind": (changed(setting("pattern", "(?<=a)b", "tag")), f"29: {TAG}.pattern: "),
    "pattern-unbalanced": (changed(setting("pattern", "(a", "tag")), f"29: {TAG}.pattern: "),
    "pattern-a-number": (changed(setting("pattern", 7, "tag")), f"29: {TAG}.pattern: "),
    "required-a-string": (
        changed(lambda crd: spec_of(crd).update(required="tag")),
        f"30: {SCHEMA}.required: ",
    ),
    "properties-a-list": (
        changed(lambda crd: spec_of(crd).update(properties=["tag"])),
        f"21: {SCHEMA}.properties: ",
    ),
    "items-a-string": (
        changed(lambda crd: spec_of(crd)["properties"].update(list={"type": "array", "items": "x"})),
        f"32: {SCHEMA}.properties.list.items: ",
    ),
    "enum-a-string": (changed(setting("enum", "a", "tag")), f"30: {TAG}.enum: "),
    "max-length-a-word": (changed(setting("maxLength", "ten", "tag")), f"30: {TAG}.maxLength: "),
    "max-length-huge": (changed(setting("maxLength", 2**62, "tag")), IN_FORCE),  # maxLength is an int64
    "minimum-a-word": (changed(setting("minimum", "abc", "replicas")), f"27: {REPLICAS}.minimum: "),
    "format-unknown": (changed(setting("format", "int128", "replicas")), IN_FORCE),  # a format is a hint
    "rule-without-rule": (
        changed(lambda crd: spec_of(crd).update({"x-kubernetes-validations": [{"message": "m"}]})),
        f"31: {SCHEMA}.x-kubernetes-validations[0]: ",
    ),
    "rule-not-cel": (
        changed(lambda crd: spec_of(crd).update({"x-kubernetes-validations": [{"rule": "self.(("}]})),
        UNCHECKED_RULE,
    ),
    "rule-deep": (
        changed(
            lambda crd: spec_of(crd).update(
                {"x-kubernetes-validations": [{"rule": "(" * 5000 + "true" + ")" * 5000}]}
            )
        ),
        UNCHECKED_RULE,
    ),
    "rule-long": (
        changed(
            lambda crd: spec_of(crd).update(
                {"x-kubernetes-validations": [{"rule": " && ".join(["true"] * 3000)}]}
            )
        ),
        UNCHECKED_RULE,
    ),
    "properties-30-deep": (changed(deep_properties(30)), IN_FORCE),
    "properties-80-deep": (changed(deep_properties(80)), "168: nested more than 100 levels deep"),
    "not-yaml": ("spec: [unclosed\n", "2: "),
    "a-list": ("- a\n- b\n", "1: must be a mapping"),
    "anchored": ("spec: &s {group: example.com}\nother: *s\n", "1: anchors and aliases"),
    "deep-text": ("spec: " + "[" * 200_000 + "]" * 200_000 + "\n", "1: nested more than 100 levels deep"),
    "huge-integer": ("spec: {replicas: " + "9" * 5000 + "}\n", "1: spec.replicas: "),
    "nan": (
        changed(setting("maximum", 1)).replace("maximum: 1", "maximum: .nan"),
        f"24: {SCHEMA}.properties.value.maximum: ",
    ),
    "two-for-one-kind": (
        changed(lambda crd: None) + "---\n" + changed(lambda crd: crd["metadata"].update(name="x")),
        "48: spec.names.kind: a second CRD for Web",
    ),
}


@pytest.mark.parametrize("name", CRDS)
def test_render_with_a_malformed_crd_fails_at_its_field_or_keeps_it_in_force(
    tmp_path: Path, name: str
) -> None:
    text, expected = CRDS[name]
    lab = _hostile.lab(tmp_path, crd_text=text)

    result = lab.render(lab.cr("value: 1\ntag: aaa\nreplicas: 1"))

    if expected not in (IN_FORCE, UNCHECKED_RULE):
        _hostile.assert_fails_at(result, f"crds/web.yaml:{expected}")
        return
    children = _hostile.assert_succeeds(result)
    assert [(child["kind"], child["metadata"]["name"]) for child in children] == [("ConfigMap", "w-cm")]
    notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
    if expected == UNCHECKED_RULE:
        assert len(notes) == 1 and "/cr.yaml:5: spec: cannot check rule " in notes[0], result.output
    else:
        assert notes == [], result.output
    refused = lab.render(lab.cr("replicas: x", file="wrong.yaml"))
    _hostile.assert_fails_at(refused, "wrong.yaml:6: spec.replicas: ")


@pytest.mark.parametrize("name", CRDS)
def test_lint_with_a_malformed_crd_reports_it_at_its_line(tmp_path: Path, name: str) -> None:
    text, expected = CRDS[name]
    lab = _hostile.lab(tmp_path, crd_text=text, example=_hostile.Lab(tmp_path).cr("value: 1").read_text())

    result = lab.lint()

    _hostile.assert_lint_clean(result)
    about_the_crd = [line for line in result.output.splitlines() if "/crds/web.yaml:" in line]
    if expected in (IN_FORCE, UNCHECKED_RULE):
        assert about_the_crd == [], result.output
        return
    line, _, said = expected.partition(": ")
    assert result.exit_code == 1, result.output
    assert len(about_the_crd) == 1 and f"/crds/web.yaml:{line}: error: {said}" in about_the_crd[0], (
        result.output
    )


BACKTRACKING = ["^(a+)+$", "^(a|a)*$", "^(a|aa)+$", "^(a*)*b$", "^([a-z]+)*[0-9]$", "^(\\w+\\s?)*$"]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pattern=st.sampled_from(BACKTRACKING),
    value=st.tuples(
        st.sampled_from("a1 _"), st.integers(min_value=0, max_value=100_000), st.sampled_from("!#a")
    ),
)
def test_a_pattern_that_backtracks_matches_in_linear_time(
    tmp_path: Path, pattern: str, value: tuple[str, int, str]
) -> None:
    lab = _hostile.lab(tmp_path, crd_text=changed(setting("pattern", pattern, "tag")))
    character, count, last = value

    _hostile.assert_clean(lab.render(lab.cr(f"tag: '{character * count}{last}'")))


def fifo(root: Path) -> str:
    os.mkfifo(root / "templates" / "web" / "pipe.yaml")
    return "pipe.yaml"


def link_to_zero(root: Path) -> str:
    (root / "templates" / "web" / "zero.yaml").symlink_to("/dev/zero")
    return "zero.yaml"


# Each kind.yaml, and where its error is in it ("line: field:").
KIND_YAMLS: dict[str, tuple[str | Callable[[Path], str], str]] = {
    "not-yaml": ("parent: [unclosed\n", ":2: "),
    "empty": ("", ": the file is empty"),
    "a-list": ("- a\n", ":1: must be a mapping"),
    "parent-missing": (
        "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\n",
        ":1: missing required field 'parent'",
    ),
    "template-missing": (_hostile.KIND_YAML.replace("[cm.yaml]", "[nowhere.yaml]"), ":6: templates[0]: "),
    "template-outside": (
        _hostile.KIND_YAML.replace("[cm.yaml]", "[../../crds/web.yaml]"),
        ":6: templates[0]: ",
    ),
    "template-absolute": (_hostile.KIND_YAML.replace("[cm.yaml]", "[/etc/passwd]"), ":6: templates[0]: "),
    "template-a-device": (_hostile.KIND_YAML.replace("[cm.yaml]", "[/dev/zero]"), ":6: templates[0]: "),
    "template-a-fifo": (fifo, ":6: templates[0]: "),
    "template-a-link-to-a-device": (link_to_zero, ":6: templates[0]: "),
    "deep": (_hostile.KIND_YAML + "status: " + "{a: " * 300 + "1" + "}" * 300 + "\n", ":7: nested"),
    "huge-integer": (
        _hostile.KIND_YAML + "placement: {clusterScoped: " + "1" * 5000 + "}\n",
        ":7: placement.clusterScoped: ",
    ),
    "control-character": (_hostile.KIND_YAML + 'status:\n  fields:\n    x: "name\x07"\n', ":9: the control"),
    "rule-unknown-name": (
        _hostile.KIND_YAML + "status:\n  fields:\n    x: sepc.value\n",
        ":9: status.fields.x: ",
    ),
    "rule-not-a-string": (_hostile.KIND_YAML + "status:\n  fields:\n    x: [1]\n", ":9: status.fields.x: "),
    "rule-empty": (_hostile.KIND_YAML + "status:\n  fields:\n    x: ''\n", ":9: status.fields.x: "),
    "rule-private-attribute": (
        _hostile.KIND_YAML + "status:\n  fields:\n    x: spec.__class__.__mro__\n",
        ":9: status.fields.x: not allowed",
    ),
}


@pytest.mark.parametrize("name", KIND_YAMLS)
def test_a_broken_kind_yaml_fails_at_its_line(tmp_path: Path, name: str) -> None:
    lab = _hostile.lab(tmp_path)
    content, expected = KIND_YAMLS[name]
    if callable(content):
        content = _hostile.KIND_YAML.replace("[cm.yaml]", f"[{content(tmp_path)}]")
    lab.write("templates/web/kind.yaml", content)

    _hostile.assert_fails_at(lab.render(lab.cr("value: 1")), f"templates/web/kind.yaml{expected}")


# Each template, and where its error is in it (":line: field:", or ": " where no line can be said).
TEMPLATES = {
    "syntax-error": ("{% if %}\n", ":1: template syntax error"),
    "unclosed-block": ("{% for x in spec %}\n", ":1: template syntax error"),
    "nested-blocks": ("{% if true %}" * 120 + "x: 1\n" + "{% endif %}" * 120, ": "),
    "nested-expression": ("x: {{ " + "(" * 5000 + "1" + ")" * 5000 + " }}\n", ": the template recurses"),
    "control-character": ("x: 1\ny: \x01\n", ":2: "),
    "recursive-macro": (
        "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}x: {{ f(0) }}\n",
        ":1: the template recurses",
    ),
    "includes-itself": ("{% include 'cm.yaml' %}\n", ":1: the template recurses"),
    "endless-loop": (
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x: 1\n",
        ":1: rendering took longer",
    ),
    "many-documents": (
        "{% for i in range(100000) %}---\nkind: ConfigMap\n{% endfor %}",
        ":1: the output is larger",
    ),
    "private-attribute": ("x: {{ spec.__class__.__mro__ }}\n", ":1: not allowed in a template"),
    "owner-references": (
        _hostile.TEMPLATE.replace("metadata:\n", "metadata:\n  ownerReferences: []\n"),
        ":4: metadata.ownerReferences: ",
    ),
    "anchor": ("a: &x 1\nb: *x\n", ":1: "),
    "not-a-mapping": ("- a\n", ":1: "),
    "empty-name": (_hostile.TEMPLATE.replace("{{ name }}-cm", "''"), ":4: metadata.name: "),
    "name-injected": (
        _hostile.TEMPLATE.replace("{{ name }}-cm", "{{ 'a\\nkind: Secret' }}"),
        ":4: metadata.name: ",
    ),
}


@pytest.mark.parametrize("name", TEMPLATES)
def test_a_broken_template_fails_at_its_line(tmp_path: Path, name: str) -> None:
    template, expected = TEMPLATES[name]
    lab = _hostile.lab(tmp_path, template=template)

    _hostile.assert_fails_at(lab.render(lab.cr("value: 1")), f"templates/web/cm.yaml{expected}")


SERVER_OWNED = [
    "managedFields: []",
    "resourceVersion: '1'",
    "uid: x",
    "generation: 2",
    "creationTimestamp: x",
]


@pytest.mark.parametrize("field", SERVER_OWNED)
def test_a_template_setting_a_server_owned_field_fails_at_its_line(tmp_path: Path, field: str) -> None:
    template = _hostile.TEMPLATE.replace("metadata:\n", f"metadata:\n  {field}\n")
    lab = _hostile.lab(tmp_path, template=template)

    result = lab.render(lab.cr("value: 1"))

    assert result.exit_code == 1
    _hostile.assert_clean(result)
