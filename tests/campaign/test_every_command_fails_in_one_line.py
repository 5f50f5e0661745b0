"""Class 6: every command meets bad input, a missing or unreachable cluster and broken folders with
one line and a non-zero exit, never a traceback."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.campaign import _hostile

UNREACHABLE_KUBECONFIG = yaml.safe_dump(
    {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": "c", "cluster": {"server": "https://127.0.0.1:1", "insecure-skip-tls-verify": True}}
        ],
        "users": [{"name": "u", "user": {"token": "t"}}],
        "contexts": [{"name": "x", "context": {"cluster": "c", "user": "u"}}],
        "current-context": "x",
    }
)

Case = Callable[[_hostile.Lab], tuple[list[str], dict[str, str] | None]]


def diff_with(kubeconfig: str | None) -> Case:
    def case(lab: _hostile.Lab) -> tuple[list[str], dict[str, str] | None]:
        config = lab.root / "missing-kubeconfig"
        if kubeconfig is not None:
            config = lab.write("kubeconfig", kubeconfig)
        cr = lab.cr("value: 1")
        arguments = ["diff", str(lab.kind_dir), "--crds", str(lab.crds_dir), "-f", str(cr)]
        return [*arguments, "--kubeconfig", str(config)], None

    return case


def rbac_with(template: str | None = None, crd_text: str | None = None) -> Case:
    def case(lab: _hostile.Lab) -> tuple[list[str], dict[str, str] | None]:
        if template is not None:
            lab.write("templates/web/cm.yaml", template)
        if crd_text is not None:
            lab.write("crds/web.yaml", crd_text)
        return ["rbac", "--templates", str(lab.root / "templates"), "--crds", str(lab.crds_dir)], None

    return case


def render_with(cr_text: str | bytes, *extra: str) -> Case:
    def case(lab: _hostile.Lab) -> tuple[list[str], dict[str, str] | None]:
        cr = lab.write("cr.yaml", cr_text)
        return ["render", str(lab.kind_dir), "--crds", str(lab.crds_dir), "-f", str(cr), *extra], None

    return case


def render_status_observed(observed: str) -> Case:
    def case(lab: _hostile.Lab) -> tuple[list[str], dict[str, str] | None]:
        arguments, env = render_with(lab.cr("value: 1").read_text(), "--status")(lab)
        return [*arguments, "--observed", str(lab.write("observed.yaml", observed))], env

    return case


CR_HEAD = f"apiVersion: {_hostile.API_VERSION}\nkind: Web\n"
CASES: dict[str, tuple[Case, bool]] = {
    # name: (case, whether the failure can name a file or field)
    "diff-no-kubeconfig": (diff_with(None), False),
    "diff-kubeconfig-not-yaml": (diff_with("clusters: [unclosed\n"), False),
    "diff-kubeconfig-empty": (diff_with(""), False),
    "diff-kubeconfig-no-context": (diff_with("apiVersion: v1\nkind: Config\n"), False),
    "diff-connection-refused": (diff_with(UNREACHABLE_KUBECONFIG), False),
    "rbac-unknown-child-kind": (
        rbac_with(template="apiVersion: nowhere.io/v9\nkind: Ghost\nmetadata: {name: g}\n"),
        True,
    ),
    "rbac-crd-not-yaml": (rbac_with(crd_text="kind: [unclosed\n"), True),
    "rbac-crd-deep": (rbac_with(crd_text="spec: " + "[" * 500 + "]" * 500 + "\n"), True),
    "rbac-crd-control-character": (rbac_with(crd_text="kind: Custom\x00ResourceDefinition\n"), True),
    "rbac-template-syntax-error": (rbac_with(template="{% if %}\n"), True),
    "render-cr-not-yaml": (render_with("kind: [unclosed\n"), True),
    "render-cr-empty": (render_with(""), False),
    "render-cr-only-comments": (render_with("# nothing\n"), False),
    "render-cr-a-list": (render_with("- a\n- b\n"), False),
    "render-cr-a-scalar": (render_with("just text\n"), False),
    "render-cr-other-kind": (render_with("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), False),
    "render-cr-no-metadata": (render_with(CR_HEAD + "spec: {value: 1}\n"), True),
    "render-cr-metadata-a-list": (render_with(CR_HEAD + "metadata: [a]\nspec: {}\n"), True),
    "render-cr-name-a-number": (render_with(CR_HEAD + "metadata: {name: 7}\nspec: {}\n"), True),
    "render-cr-spec-a-string": (render_with(CR_HEAD + "metadata: {name: w}\nspec: text\n"), True),
    "render-cr-not-utf8": (render_with(b"kind: \xff\xfe\n"), True),
    "render-cr-utf16": (render_with("kind: Web\n".encode("utf-16")), True),
    "render-cr-nul": (render_with(CR_HEAD + 'metadata: {name: w}\nspec: {value: "a\x00b"}\n'), True),
    "render-cr-anchor": (render_with(CR_HEAD + "metadata: &m {name: w}\nspec: {value: *m}\n"), True),
    "render-cr-billion-laughs": (render_with("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"), True),
    "render-cr-merge-key": (render_with(CR_HEAD + "metadata: {name: w, <<: {x: 1}}\n"), True),
    "render-cr-python-tag": (render_with(CR_HEAD + "metadata: !!python/object/apply:os.system [ls]\n"), True),
    "render-cr-duplicate-key": (render_with(CR_HEAD + "metadata: {name: w}\nmetadata: {name: v}\n"), True),
    "render-cr-tab-indented": (render_with(CR_HEAD + "metadata:\n\tname: w\n"), True),
    "render-cr-many-documents": (render_with((CR_HEAD + "metadata: {name: w}\nspec: {}\n---\n") * 2), False),
    "render-bad-now": (
        render_with(CR_HEAD + "metadata: {name: w}\nspec: {}\n", "--status", "--now", "yesterday"),
        False,
    ),
    "render-observed-not-yaml": (render_status_observed("kind: [unclosed\n"), True),
    "render-observed-deep": (render_status_observed("a: " + "[" * 500 + "]" * 500 + "\n"), True),
    "render-observed-a-scalar": (render_status_observed("text\n"), False),
}


# Failures still known, each where its fix belongs.
KNOWN: dict[str, str] = {}  # cases known to fail, with where the fix belongs


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(name, marks=pytest.mark.xfail(strict=True, reason=KNOWN[name]))
        if name in KNOWN
        else name
        for name in CASES
    ],
)
def test_the_command_fails_in_one_line_without_a_traceback(tmp_path: Path, name: str) -> None:
    case, located = CASES[name]
    arguments, env = case(_hostile.lab(tmp_path))

    result = _hostile.invoke(arguments, env=env)

    _hostile.assert_clean(result, located=located)
