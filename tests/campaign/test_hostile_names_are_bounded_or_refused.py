"""Class 4: whatever a parent is named, and whatever namespace it names, ``stencil render`` either
renders children whose names, namespace and labels the API server accepts, in the parent's namespace,
or fails in one located line.

The forms are matched whole (``fullmatch``): ``re.match`` with ``$`` would let a value end in a
line break, which the API server refuses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.campaign import _hostile

DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
DEFAULT_NAMESPACE = "default"  # where render puts a CR that names no namespace, without -n


def cr(name: str, namespace: str | None = None) -> str:
    metadata = {"name": name} | ({} if namespace is None else {"namespace": namespace})
    return yaml.safe_dump(
        {"apiVersion": _hostile.API_VERSION, "kind": "Web", "metadata": metadata, "spec": {"value": 1}}
    )


def assert_children_are_acceptable(output: str, namespace: str) -> None:
    """Every child rendered has a name, namespace and label values the API server accepts, and
    is in ``namespace``, its parent's."""
    children = list(yaml.safe_load_all(output))
    assert children, output
    for child in children:
        metadata = child["metadata"]
        name = metadata["name"]
        assert isinstance(name, str) and len(name) <= 253 and DNS_SUBDOMAIN.fullmatch(name), repr(name)
        placed = metadata.get("namespace")
        assert placed == namespace, (placed, namespace)
        assert len(placed) <= 63 and DNS_LABEL.fullmatch(placed), repr(placed)
        for value in (metadata.get("labels") or {}).values():
            assert isinstance(value, str) and len(value) <= 63 and LABEL_VALUE.fullmatch(value), repr(value)


NAMES = st.one_of(
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-.", min_size=1, max_size=260),
    st.text(max_size=80),
    st.sampled_from(["a" * 63, "a" * 64, "a" * 253, "a" * 254, "a.b" * 80, "web\nkind: Secret", "../x", "*"]),
)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_any_parent_name_renders_acceptable_children_or_fails_in_one_line(tmp_path: Path, name: str) -> None:
    lab = _hostile.lab(tmp_path)

    result = lab.render(lab.write("cr.yaml", cr(name)))

    _hostile.assert_clean(result)
    if result.exit_code == 0:
        assert_children_are_acceptable(result.output, DEFAULT_NAMESPACE)


NAMESPACES = [
    "",
    "../kube-system",
    "*",
    "kube-system\n",
    "Default",
    "a" * 64,
    "a" * 63,
    "ns.with.dots",
    "-leading",
    "trailing-",
    "name space",
    "ns/sub",
    "ünïcode",
    "null",
    "0",
    "default",
]


@pytest.mark.parametrize("namespace", NAMESPACES)
def test_any_namespace_renders_acceptable_children_or_fails_in_one_line(
    tmp_path: Path, namespace: str
) -> None:
    lab = _hostile.lab(tmp_path)

    result = lab.render(lab.write("cr.yaml", cr("web", namespace)))

    _hostile.assert_clean(result)
    if result.exit_code == 0:
        assert_children_are_acceptable(result.output, namespace)


@pytest.mark.parametrize("namespace", ["../kube-system", "*", "", "UPPER", "a" * 64, "default\n", "a" * 63])
def test_a_namespace_given_with_n_renders_acceptable_children_or_fails_in_one_line(
    tmp_path: Path, namespace: str
) -> None:
    lab = _hostile.lab(tmp_path)
    arguments = ["render", str(lab.kind_dir), "--crds", str(lab.crds_dir), "-n", namespace]

    result = _hostile.invoke([*arguments, "-f", str(lab.write("cr.yaml", cr("web")))])

    _hostile.assert_clean(result, located=False)
    if result.exit_code == 0:
        assert_children_are_acceptable(result.output, namespace)
