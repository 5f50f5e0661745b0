"""Label values fit 63 characters and keys are qualified names, wherever a label is: on the child, its pod
template, its selectors, and the labels Stencil adds itself."""

from __future__ import annotations

import pytest

from engine.core.model.children import placement
from engine.core.offline import childschemas
from tests.unit._schema_children import deployment, errors_at, labels, service


def test_a_label_value_of_63_characters_fits() -> None:
    child = deployment()
    child["metadata"]["labels"] = labels(tier="t" * 63)

    assert childschemas.check(child) == []


def test_a_label_value_of_64_characters_is_refused_and_clipped_in_the_message() -> None:
    child = deployment()
    child["metadata"]["labels"] = labels(tier="t" * 64)

    problems = childschemas.check(child)

    assert errors_at(problems) == {("metadata", "labels", "tier")}
    assert "64" in problems[0].message
    assert "t" * 64 not in problems[0].message


def test_pod_template_and_selector_labels_are_checked_too() -> None:
    long = "shop-" * 13
    child = deployment()
    child["spec"]["selector"]["matchLabels"]["app"] = long
    child["spec"]["template"]["metadata"]["labels"]["app"] = long

    assert errors_at(childschemas.check(child)) == {
        ("spec", "selector", "matchLabels", "app"),
        ("spec", "template", "metadata", "labels", "app"),
    }


def test_a_service_selector_is_checked_as_labels() -> None:
    child = service()
    child["spec"]["selector"] = {"app": "not a label value"}

    assert errors_at(childschemas.check(child)) == {("spec", "selector", "app")}


@pytest.mark.parametrize("value", ["-shop", "shop.", "shop web", "shöp"])
def test_a_label_value_begins_and_ends_with_a_letter_or_digit_and_has_no_spaces(value: str) -> None:
    child = deployment()
    child["metadata"]["labels"] = labels(tier=value)

    assert errors_at(childschemas.check(child)) == {("metadata", "labels", "tier")}


@pytest.mark.parametrize("key", ["example.com/" + "k" * 64, "Example_Com/tier", "/tier", "a/b/c", "tier-"])
def test_a_label_key_is_a_qualified_name(key: str) -> None:
    child = deployment()
    child["metadata"]["labels"] = labels(**{key: "x"})

    assert errors_at(childschemas.check(child)) == {("metadata", "labels", key)}


def test_the_kind_label_stencil_adds_names_the_kind_folder_as_the_cause() -> None:
    child = deployment()
    child["metadata"]["labels"] = labels(**{placement.KIND_LABEL: "k" * 64})

    problems = childschemas.check(child)

    assert errors_at(problems) == {("metadata", "labels", placement.KIND_LABEL)}
    assert "kind folder" in problems[0].message
    assert str(problems[0]).startswith(f'metadata.labels["{placement.KIND_LABEL}"]: ')
