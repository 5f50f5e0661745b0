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


CRDS: dict[str, str] = {
    "spec-a-list": changed(lambda crd: crd.update(spec=[crd["spec"]])),
    "versions-empty": changed(lambda crd: crd["spec"].update(versions=[])),
    "versions-a-string": changed(lambda crd: crd["spec"].update(versions="v1")),
    "names-missing": changed(lambda crd: crd["spec"].pop("names")),
    "scope-unknown": changed(lambda crd: crd["spec"].update(scope="Galaxy")),
    "schema-a-string": changed(
        lambda crd: crd["spec"]["versions"][0]["schema"].update(openAPIV3Schema="object")
    ),
    "type-misspelt": changed(setting("type", "strnig", "tag")),
    "type-a-list": changed(setting("type", ["string"], "tag")),
    "pattern-lookbehind": changed(setting("pattern", "(?<=a)b", "tag")),
    "pattern-unbalanced": changed(setting("pattern", "(a", "tag")),
    "pattern-a-number": changed(setting("pattern", 7, "tag")),
    "required-a-string": changed(lambda crd: spec_of(crd).update(required="tag")),
    "properties-a-list": changed(lambda crd: spec_of(crd).update(properties=["tag"])),
    "items-a-string": changed(
        lambda crd: spec_of(crd)["properties"].update(list={"type": "array", "items": "x"})
    ),
    "enum-a-string": changed(setting("enum", "a", "tag")),
    "max-length-a-word": changed(setting("maxLength", "ten", "tag")),
    "max-length-huge": changed(setting("maxLength", 2**62, "tag")),
    "minimum-a-word": changed(setting("minimum", "abc", "replicas")),
    "format-unknown": changed(setting("format", "int128", "replicas")),
    "rule-without-rule": changed(
        lambda crd: spec_of(crd).update({"x-kubernetes-validations": [{"message": "m"}]})
    ),
    "rule-not-cel": changed(
        lambda crd: spec_of(crd).update({"x-kubernetes-validations": [{"rule": "self.(("}]})
    ),
    "rule-deep": changed(
        lambda crd: spec_of(crd).update(
            {"x-kubernetes-validations": [{"rule": "(" * 5000 + "true" + ")" * 5000}]}
        )
    ),
    "rule-long": changed(
        lambda crd: spec_of(crd).update(
            {"x-kubernetes-validations": [{"rule": " && ".join(["true"] * 3000)}]}
        )
    ),
    "properties-30-deep": changed(deep_properties(30)),
    "properties-80-deep": changed(deep_properties(80)),
    "not-yaml": "spec: [unclosed\n",
    "a-list": "- a\n- b\n",
    "anchored": "spec: &s {group: example.com}\nother: *s\n",
    "deep-text": "spec: " + "[" * 200_000 + "]" * 200_000 + "\n",
    "huge-integer": "spec: {replicas: " + "9" * 5000 + "}\n",
    "nan": changed(setting("maximum", 1)).replace("maximum: 1", "maximum: .nan"),
    "two-for-one-kind": changed(lambda crd: None)
    + "---\n"
    + changed(lambda crd: crd["metadata"].update(name="x")),
}


@pytest.mark.parametrize("name", CRDS)
def test_render_with_a_malformed_crd_fails_in_one_located_line(tmp_path: Path, name: str) -> None:
    lab = _hostile.lab(tmp_path, crd_text=CRDS[name])

    _hostile.assert_clean(lab.render(lab.cr("value: 1\ntag: aaa\nreplicas: 1")))


@pytest.mark.parametrize("name", CRDS)
def test_lint_with_a_malformed_crd_reports_findings_at_their_lines(tmp_path: Path, name: str) -> None:
    lab = _hostile.lab(
        tmp_path, crd_text=CRDS[name], example=_hostile.Lab(tmp_path).cr("value: 1").read_text()
    )

    _hostile.assert_lint_clean(lab.lint())


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


KIND_YAMLS: dict[str, str | Callable[[Path], str]] = {
    "not-yaml": "parent: [unclosed\n",
    "empty": "",
    "a-list": "- a\n",
    "parent-missing": "apiVersion: stencil.dev/v1alpha1\nkind: StencilKind\n",
    "template-missing": _hostile.KIND_YAML.replace("[cm.yaml]", "[nowhere.yaml]"),
    "template-outside": _hostile.KIND_YAML.replace("[cm.yaml]", "[../../crds/web.yaml]"),
    "template-absolute": _hostile.KIND_YAML.replace("[cm.yaml]", "[/etc/passwd]"),
    "template-a-device": _hostile.KIND_YAML.replace("[cm.yaml]", "[/dev/zero]"),
    "template-a-fifo": fifo,
    "template-a-link-to-a-device": link_to_zero,
    "deep": _hostile.KIND_YAML + "status: " + "{a: " * 300 + "1" + "}" * 300 + "\n",
    "huge-integer": _hostile.KIND_YAML + "placement: {clusterScoped: " + "1" * 5000 + "}\n",
    "control-character": _hostile.KIND_YAML + 'status:\n  fields:\n    x: "name\x07"\n',
    "rule-unknown-name": _hostile.KIND_YAML + "status:\n  fields:\n    x: sepc.value\n",
    "rule-not-a-string": _hostile.KIND_YAML + "status:\n  fields:\n    x: [1]\n",
    "rule-empty": _hostile.KIND_YAML + "status:\n  fields:\n    x: ''\n",
    "rule-private-attribute": _hostile.KIND_YAML + "status:\n  fields:\n    x: spec.__class__.__mro__\n",
}


@pytest.mark.parametrize("name", KIND_YAMLS)
def test_a_broken_kind_yaml_fails_in_one_located_line(tmp_path: Path, name: str) -> None:
    lab = _hostile.lab(tmp_path)
    content = KIND_YAMLS[name]
    if callable(content):
        content = _hostile.KIND_YAML.replace("[cm.yaml]", f"[{content(tmp_path)}]")
    lab.write("templates/web/kind.yaml", content)

    _hostile.assert_clean(lab.render(lab.cr("value: 1")))


TEMPLATES = {
    "syntax-error": "{% if %}\n",
    "unclosed-block": "{% for x in spec %}\n",
    "nested-blocks": "{% if true %}" * 120 + "x: 1\n" + "{% endif %}" * 120,
    "nested-expression": "x: {{ " + "(" * 5000 + "1" + ")" * 5000 + " }}\n",
    "control-character": "x: 1\ny: \x01\n",
    "recursive-macro": "{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}x: {{ f(0) }}\n",
    "includes-itself": "{% include 'cm.yaml' %}\n",
    "endless-loop": "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}x: 1\n",
    "many-documents": "{% for i in range(100000) %}---\nkind: ConfigMap\n{% endfor %}",
    "private-attribute": "x: {{ spec.__class__.__mro__ }}\n",
    "owner-references": _hostile.TEMPLATE.replace("metadata:\n", "metadata:\n  ownerReferences: []\n"),
    "anchor": "a: &x 1\nb: *x\n",
    "not-a-mapping": "- a\n",
    "empty-name": _hostile.TEMPLATE.replace("{{ name }}-cm", "''"),
    "name-injected": _hostile.TEMPLATE.replace("{{ name }}-cm", "{{ 'a\\nkind: Secret' }}"),
}


@pytest.mark.parametrize("name", TEMPLATES)
def test_a_broken_template_fails_in_one_located_line(tmp_path: Path, name: str) -> None:
    lab = _hostile.lab(tmp_path, template=TEMPLATES[name])

    _hostile.assert_clean(lab.render(lab.cr("value: 1")))


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
