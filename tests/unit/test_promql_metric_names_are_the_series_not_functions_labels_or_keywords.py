"""What the dashboard test reads out of a PromQL expression: the series it selects, never a
function, an aggregation and its label list, a keyword, a label matcher's value, a range,
a number or a Grafana variable; histogram series belong to their family."""

from __future__ import annotations

import pytest

from tests import _promql


@pytest.mark.parametrize(
    ("expression", "names"),
    [
        ('sum by (controller, result) (rate(a_total{controller=~"$kind"}[$__rate_interval]))', {"a_total"}),
        ("histogram_quantile(0.99, sum by (le) (rate(h_seconds_bucket[5m])))", {"h_seconds_bucket"}),
        ('a{code="429", method=~"rate(b)|c"} / ignoring(code) group_left b', {"a", "b"}),
        ("max without (pod) (up) > bool 0 and on (job) x:recorded offset 1h", {"up", "x:recorded"}),
        ("sum(increase(errors_total[1h:5m])) * 1e3 or vector(0)", {"errors_total"}),
        ("${datasource_metric} + plain", {"plain"}),
    ],
)
def test_metric_names(expression: str, names: set[str]) -> None:
    assert _promql.metric_names(expression) == names


def test_a_histograms_series_belong_to_its_family() -> None:
    assert [_promql.family(n) for n in ("h_bucket", "h_sum", "h_count", "h_total")] == [
        "h",
        "h",
        "h",
        "h_total",
    ]


def test_a_grafana_label_values_query_names_its_series() -> None:
    assert _promql.label_values_metric("label_values(a_total, controller)") == "a_total"
    assert _promql.label_values_metric("query_result(a_total)") is None
