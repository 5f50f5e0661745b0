"""Class 6: every command meets bad input, a missing or unreachable cluster and broken folders with
one line that names the place at fault and a non-zero exit, never a traceback nor a crash put in one
line; the few inputs that are fine (two CRs in one file, an empty List observed) render as checked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from click.testing import Result

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


def render_observed(observed: str, *extra: str) -> Case:
    def case(lab: _hostile.Lab) -> tuple[list[str], dict[str, str] | None]:
        arguments, env = render_with(lab.cr("value: 1").read_text(), *extra)(lab)
        return [*arguments, "--observed", str(lab.write("observed.yaml", observed))], env

    return case


def renders(*names: str) -> Callable[[Result], None]:
    """The check of a case that must succeed: it prints the ConfigMap of each CR ``names``, in order."""

    def check(result: Result) -> None:
        children = _hostile.assert_succeeds(result)
        assert [child["metadata"]["name"] for child in children] == [f"{name}-cm" for name in names]

    return check


CR_HEAD = f"apiVersion: {_hostile.API_VERSION}\nkind: Web\n"
NO_WEB = "no Web (example.com/v1) in "
# Each case and what it must give: the text its one error line names (file:line: field, or what it
# could not reach), or the check of what it printed when it must succeed.
CASES: dict[str, tuple[Case, str | Callable[[Result], None]]] = {
    "diff-no-kubeconfig": (diff_with(None), "cannot use the kubeconfig (/"),
    "diff-kubeconfig-not-yaml": (diff_with("clusters: [unclosed\n"), "/kubeconfig): line 2: "),
    "diff-kubeconfig-empty": (diff_with(""), "/kubeconfig): "),
    "diff-kubeconfig-no-context": (diff_with("apiVersion: v1\nkind: Config\n"), "/kubeconfig): "),
    "diff-connection-refused": (diff_with(UNREACHABLE_KUBECONFIG), "the API server did not answer: "),
    "rbac-unknown-child-kind": (
        rbac_with(template="apiVersion: nowhere.io/v9\nkind: Ghost\nmetadata: {name: g}\n"),
        "no resource known for Ghost in nowhere.io/v9",
    ),
    "rbac-crd-not-yaml": (rbac_with(crd_text="kind: [unclosed\n"), "crds/web.yaml:2: "),
    "rbac-crd-deep": (rbac_with(crd_text="spec: " + "[" * 500 + "]" * 500 + "\n"), "crds/web.yaml:1: "),
    "rbac-crd-control-character": (
        rbac_with(crd_text="kind: Custom\x00ResourceDefinition\n"),
        "crds/web.yaml:1: ",
    ),
    "rbac-template-syntax-error": (rbac_with(template="{% if %}\n"), "web/cm.yaml:1: template syntax error"),
    "render-cr-not-yaml": (render_with("kind: [unclosed\n"), "cr.yaml:2: "),
    "render-cr-empty": (render_with(""), NO_WEB),
    "render-cr-only-comments": (render_with("# nothing\n"), NO_WEB),
    "render-cr-a-list": (render_with("- a\n- b\n"), "cr.yaml:1: a manifest must be a mapping"),
    "render-cr-a-scalar": (render_with("just text\n"), "cr.yaml:1: a manifest must be a mapping"),
    "render-cr-other-kind": (render_with("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"), NO_WEB),
    "render-cr-no-metadata": (
        render_with(CR_HEAD + "spec: {value: 1}\n"),
        "cr.yaml:1: missing required field",
    ),
    "render-cr-metadata-a-list": (
        render_with(CR_HEAD + "metadata: [a]\nspec: {}\n"),
        "cr.yaml:3: metadata: ",
    ),
    "render-cr-name-a-number": (
        render_with(CR_HEAD + "metadata: {name: 7}\nspec: {}\n"),
        "cr.yaml:3: metadata.name: ",
    ),
    "render-cr-spec-a-string": (
        render_with(CR_HEAD + "metadata: {name: w}\nspec: text\n"),
        "cr.yaml:4: spec: ",
    ),
    "render-cr-not-utf8": (render_with(b"kind: \xff\xfe\n"), "cr.yaml:1: not UTF-8"),
    "render-cr-utf16": (render_with("kind: Web\n".encode("utf-16")), "cr.yaml:1: not UTF-8"),
    "render-cr-nul": (render_with(CR_HEAD + 'metadata: {name: w}\nspec: {value: "a\x00b"}\n'), "cr.yaml:4: "),
    "render-cr-anchor": (render_with(CR_HEAD + "metadata: &m {name: w}\nspec: {value: *m}\n"), "cr.yaml:3: "),
    "render-cr-billion-laughs": (render_with("a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n"), "cr.yaml:1: "),
    "render-cr-merge-key": (render_with(CR_HEAD + "metadata: {name: w, <<: {x: 1}}\n"), "cr.yaml:3: "),
    "render-cr-python-tag": (
        render_with(CR_HEAD + "metadata: !!python/object/apply:os.system [ls]\n"),
        "cr.yaml:3: metadata: ",
    ),
    "render-cr-duplicate-key": (
        render_with(CR_HEAD + "metadata: {name: w}\nmetadata: {name: v}\n"),
        "cr.yaml:4: duplicate key",
    ),
    "render-cr-tab-indented": (render_with(CR_HEAD + "metadata:\n\tname: w\n"), "cr.yaml:4: "),
    "render-cr-many-documents": (
        render_with((CR_HEAD + "metadata: {name: w}\nspec: {}\n---\n") * 2),
        "cr.yaml:8: metadata.name: a second Web named 'w' (the first is at ",
    ),
    "render-cr-two-documents": (
        render_with("---\n".join(CR_HEAD + f"metadata: {{name: {name}}}\nspec: {{}}\n" for name in "wv")),
        renders("w", "v"),
    ),
    "render-bad-now": (
        render_with(CR_HEAD + "metadata: {name: w}\nspec: {}\n", "--status", "--now", "yesterday"),
        "Invalid value for '--now'",
    ),
    "render-observed-not-yaml": (render_observed("kind: [unclosed\n", "--status"), "observed.yaml:2: "),
    "render-observed-deep": (
        render_observed("a: " + "[" * 500 + "]" * 500 + "\n", "--status"),
        "observed.yaml:1: ",
    ),
    "render-observed-a-scalar": (render_observed("text\n", "--status"), "observed.yaml:1: must be a mapping"),
    "render-observed-a-scalar-without-status": (
        render_observed("text\n"),
        "observed.yaml:1: must be a mapping",
    ),
    "render-observed-list-of-a-scalar": (
        render_observed("apiVersion: v1\nkind: List\nitems: [text]\n"),
        "observed.yaml:3: items[0]: must be a mapping",
    ),
    "render-observed-no-kind": (render_observed("metadata: {name: w-cm}\n"), "observed.yaml:1: "),
    "render-observed-an-empty-list": (
        render_observed("apiVersion: v1\nkind: List\nitems: []\n"),
        renders("w"),
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_the_command_fails_at_its_place_or_succeeds_as_checked(tmp_path: Path, name: str) -> None:
    case, expected = CASES[name]
    arguments, env = case(_hostile.lab(tmp_path))

    result = _hostile.invoke(arguments, env=env)

    if callable(expected):
        expected(result)
    else:
        _hostile.assert_fails_at(result, expected)
