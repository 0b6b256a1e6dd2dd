"""How the review pages write a headline number: the unit the metric is kept in, thousands
separators, fractions as percentages, money in millions where it is large."""

from studio.runs.headline import HEADLINE_METRICS, Metric, card_text
from studio.runs.sections.format import DASH, amount, count, percent

METRICS = {m.key: m for m in HEADLINE_METRICS}


def metric_text(value, metric: Metric) -> str:
    if value is None or isinstance(value, bool):
        return DASH
    if metric.unit == "fraction":
        return percent(value)
    if metric.unit == "USD":
        return f"${value / 1e6:,.1f} M" if abs(value) >= 1e6 else f"${value:,.0f}"
    if metric.unit == "USD/GPU-h":
        return f"${value:,.2f}/GPU-h"
    if metric.unit == "count":
        return count(value)
    if metric.unit == "%":
        return f"{amount(value)} %"
    return f"{amount(value)} {metric.unit}"


def card_parts(value, metric: Metric) -> tuple[str, str]:
    """(number, unit) for a headline card, where the unit is printed small under the number:
    as the design and results pages write it (the review page said 101 h where the design page
    beside it said 100.9 h)."""
    return card_text(value, metric)


def headline_rows(headline: dict) -> list[dict]:
    """The metrics the headline has, in the comparison's order, written out."""
    return [
        {
            "key": m.key,
            "label": m.label,
            "text": card_parts(headline[m.key], m)[0],
            "unit": card_parts(headline[m.key], m)[1],
            "full": metric_text(headline[m.key], m),
            "value": headline[m.key],
        }
        for m in HEADLINE_METRICS
        if headline.get(m.key) is not None and not (m.key == "sites" and headline[m.key] == 1)
    ]
