"""`quantity` parses a Kubernetes quantity into a value that compares by amount and prints as the
API server writes it, in templates and status rules alike."""

from __future__ import annotations

import pytest

from engine.core.model.language.library import quantity
from tests.unit._library import render_data, rule


def test_quantities_compare_by_amount_not_by_text() -> None:
    assert rule("spec.a | quantity < spec.b | quantity", {"a": "500Mi", "b": "1Gi"}) is True
    assert rule("spec.a | quantity < spec.b | quantity", {"a": "2", "b": "1500m"}) is False
    assert rule("quantity(spec.a) == quantity(spec.b)", {"a": "1Gi", "b": "1024Mi"}) is True
    assert rule("spec.a | quantity > 1000", {"a": "1Ki"}) is True


@pytest.mark.parametrize(
    ("written", "canonical"),
    [
        ("1024Mi", "1Gi"),
        ("0.5Gi", "512Mi"),
        ("1536Mi", "1536Mi"),
        ("1.5", "1500m"),
        ("1000", "1k"),
        ("12000", "12k"),
        ("0.1n", "1n"),
        ("1e3", "1e3"),
        ("0.5Ki", "512"),
        ("-2Ki", "-2Ki"),
        ("0", "0"),
    ],
)
def test_a_quantity_prints_in_the_api_servers_canonical_form(written: str, canonical: str) -> None:
    assert str(quantity(written)) == canonical


def test_a_template_places_a_quantity_as_its_canonical_text() -> None:
    data = render_data(
        "  memory: {{ spec.memory | quantity }}\n"
        "  bigger: '{{ [spec.memory | quantity, quantity('2Gi')] | max }}'\n",
        {"memory": "1024Mi"},
    )
    assert data == {"memory": "1Gi", "bigger": "2Gi"}


def test_a_rule_gives_a_quantity_as_its_canonical_text() -> None:
    assert rule("spec.memory | quantity", {"memory": "2048Ki"}) == "2Mi"


def test_a_quantity_as_a_number_is_rounded_up_to_a_whole_one() -> None:
    assert rule("spec.cpu | quantity | int", {"cpu": "1200m"}) == 2
    assert rule("spec.cpu | quantity | float", {"cpu": "1200m"}) == 1.2
