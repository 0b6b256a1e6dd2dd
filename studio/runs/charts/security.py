"""Security charts: check results by severity, by category, and framework coverage."""

import plotly.graph_objects as go

from models_engine import SecurityResult
from studio.runs.charts.common import STATUS_COLOURS, base_layout

SEVERITIES = ["critical", "high", "medium", "low", "info"]
STATUSES = ["FAIL", "ACCEPTED_RISK", "PASS", "MANUAL", "NOT_APPLICABLE"]


def _stacked(title: str, rows: dict, labels: list[str], names: list[str], x_title: str):
    figure = go.Figure()
    for status in STATUSES:
        key = status.lower()
        figure.add_bar(
            name=status.replace("_", " ").lower(),
            x=labels,
            y=[rows[n].get(key, 0) for n in names],
            marker_color=STATUS_COLOURS[status],
        )
    figure.update_layout(
        base_layout(
            title, xaxis={"title": {"text": x_title}}, yaxis={"title": {"text": "checks (count)"}}
        ),
        barmode="stack",
    )
    return figure


def findings_by_severity(security: SecurityResult) -> go.Figure:
    by_severity = security.by_severity
    names = [s for s in SEVERITIES if s in by_severity and by_severity[s]["total"]]
    return _stacked(
        "Security checks by severity and result", security.by_severity, names, names, "severity"
    )


def findings_by_category(security: SecurityResult) -> go.Figure:
    """Horizontal bars: one row per category with its full name readable (vertical bars
    squashed a dozen long labels into slanted, cut text)."""
    categories = security.by_category
    names = list(categories)
    labels = [categories[n].get("title", n) for n in names]
    figure = go.Figure()
    for status in STATUSES:
        key = status.lower()
        figure.add_bar(
            name=status.replace("_", " ").lower(),
            y=labels,
            x=[categories[n].get(key, 0) for n in names],
            orientation="h",
            marker_color=STATUS_COLOURS[status],
        )
    figure.update_layout(
        base_layout(
            "Security checks by category and result",
            xaxis={"title": {"text": "checks (count)"}},
            yaxis={"autorange": "reversed"},
        ),
        barmode="stack",
        height=max(380, 140 + 28 * len(labels)),
    )
    return figure


def framework_coverage(security: SecurityResult) -> go.Figure:
    rows = security.framework_coverage
    labels = [f"{r['framework']} ({r['version']})" for r in rows]
    figure = go.Figure()
    for key, name, colour in (
        ("passing", "all checks pass", "#12b76a"),
        ("failing", "a check fails", "#d92d20"),
        ("unverified", "needs manual evidence", "#98a2b3"),
    ):
        figure.add_bar(
            name=name, y=labels, x=[r[key] for r in rows], orientation="h", marker_color=colour
        )
    figure.update_layout(
        base_layout(
            "Framework coverage: mapped requirements by state",
            xaxis={"title": {"text": "requirements (count)"}},
            yaxis={"automargin": True},
        ),
        barmode="stack",
    )
    return figure
