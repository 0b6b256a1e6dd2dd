"""The roadmap as the report shows it: a Gantt timeline with dependency arrows (Plotly) and
the phase table, read from the stored RoadmapResult (nothing recomputed)."""

import plotly.graph_objects as go

from models_engine import RoadmapResult
from studio.runs.charts.common import base_layout, figure_entry
from studio.runs.sections.format import DASH, amount, usd

STATUS_COLOURS = {"done": "#98a2b3", "planned": "#2e5aac"}


def parse_roadmap(data: dict | None) -> RoadmapResult | None:
    if not data:
        return None
    try:
        return RoadmapResult.from_json(data)
    except ValueError:
        return None


def money(value: float | None) -> str:
    """`$1.2M`, `$850k`, `$12` (two significant digits past a thousand)."""
    if value is None:
        return DASH
    size = abs(value)
    for limit, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if size >= limit:
            scaled = value / limit
            return f"${scaled:,.{1 if abs(scaled) < 10 else 0}f}{suffix}"
    return usd(value)


def gantt_figure(roadmap: RoadmapResult) -> dict:
    phases = roadmap.phases
    labels = [p.title for p in phases]
    figure = go.Figure()
    for status in ("done", "planned"):
        chosen = [p for p in phases if p.status == status]
        if not chosen:
            continue
        figure.add_bar(
            orientation="h",
            y=[p.title for p in chosen],
            x=[max(p.duration_weeks, 0.4) for p in chosen],
            base=[p.start_week for p in chosen],
            marker_color=STATUS_COLOURS[status],
            name="already satisfied" if status == "done" else "planned",
            text=[f"{p.duration_weeks} wk" for p in chosen],
            textposition="inside",
            insidetextanchor="middle",
            hovertemplate="%{y}: weeks %{base} to %{x}<extra></extra>",
        )
    by_id = {p.id: p for p in phases}
    arrows = []
    for phase in phases:
        for dep in phase.depends_on:
            before = by_id.get(dep)
            if before is None:
                continue
            arrows.append(
                {
                    "x": phase.start_week,
                    "y": phase.title,
                    "ax": before.start_week + before.duration_weeks,
                    "ay": before.title,
                    "xref": "x",
                    "yref": "y",
                    "axref": "x",
                    "ayref": "y",
                    "showarrow": True,
                    "arrowhead": 2,
                    "arrowsize": 1.2,
                    "arrowwidth": 1.4,
                    "arrowcolor": "#f79009",
                    "text": "",
                }
            )
    layout = base_layout(
        "Roadmap timeline (arrows: a phase waits for the one it depends on)",
        xaxis={"title": {"text": "weeks from start"}, "rangemode": "tozero"},
        yaxis={"autorange": "reversed", "categoryorder": "array", "categoryarray": labels},
        barmode="overlay",
        annotations=arrows,
        height=max(300, 70 + 48 * len(phases)),
    )
    layout["margin"] = {"l": 210, "r": 30, "t": 60, "b": 90}
    layout["legend"] = {"orientation": "h", "y": -0.25, "x": 0}
    figure.update_layout(layout)
    return figure_entry("roadmap-gantt", figure)


def change_text(change) -> str:
    fraction = change.change_fraction
    if change.before is None or change.after is None:
        return f"{change.label}: {DASH}"
    unit = "" if change.unit in ("fraction", "USD") else f" {change.unit}"
    show = money if change.unit == "USD" else amount
    words = f"{change.label} {show(change.before)}{unit} → {show(change.after)}{unit}"
    if fraction is not None:
        words += f" ({fraction * 100:+.0f} %)"
    return words


def phase_rows(roadmap: RoadmapResult) -> list[dict]:
    titles = {p.id: p.title for p in roadmap.phases}
    return [
        {
            "phase": p,
            "weeks": f"{p.start_week}\u2013{p.start_week + p.duration_weeks}",
            "depends": ", ".join(titles.get(d, d) for d in p.depends_on) or DASH,
            "capex": money(p.capex_usd) if p.capex_usd else DASH,
            "opex": money(p.opex_usd_per_year) if p.opex_usd_per_year else DASH,
            "changes": [change_text(c) for c in p.headline_change],
            "actions": [
                {
                    "action": a,
                    "money": ", ".join(
                        part
                        for part in (
                            a.capex_usd and f"capex {money(a.capex_usd)}",
                            a.opex_usd_per_year and f"opex {money(a.opex_usd_per_year)}/yr",
                            a.savings_usd_per_year and f"saves {money(a.savings_usd_per_year)}/yr",
                            a.payback_months and f"payback {a.payback_months:.0f} months",
                        )
                        if part
                    ),
                }
                for a in p.actions
            ],
        }
        for p in roadmap.phases
    ]


def roadmap_context(data: dict | None) -> dict | None:
    roadmap = parse_roadmap(data)
    if roadmap is None:
        return None
    return {
        "result": roadmap,
        "figure": gantt_figure(roadmap),
        "phases": phase_rows(roadmap),
        "planned": sum(p.status == "planned" for p in roadmap.phases),
        "done": sum(p.status == "done" for p in roadmap.phases),
        "capex": money(sum(p.capex_usd for p in roadmap.phases if p.status == "planned")),
    }
