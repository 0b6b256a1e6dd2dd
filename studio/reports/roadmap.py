"""The roadmap as the report shows it: a Gantt timeline with dependency arrows (Plotly) and
the phase table, read from the stored RoadmapResult (nothing recomputed)."""

import plotly.graph_objects as go

from models_engine import RoadmapResult
from studio.runs.charts.common import figure_entry, titled_layout
from studio.runs.sections.format import DASH, amount, percent, usd

STATUS_COLOURS = {"done": "#98a2b3", "planned": "#2e5aac", "not-proposed": "#d0d5dd"}
STATUS_WORDS = {
    "done": "already satisfied",
    "planned": "planned",
    "not-proposed": "not proposed",
}


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
    for status in STATUS_WORDS:
        chosen = [p for p in phases if p.status == status]
        if not chosen:
            continue
        planned = status == "planned"
        figure.add_bar(
            orientation="h",
            y=[p.title for p in chosen],
            # Phases with no work still get a sliver, so every row shows where it sits.
            x=[max(p.duration_weeks, 0.4) for p in chosen],
            base=[p.start_week for p in chosen],
            marker_color=STATUS_COLOURS[status],
            name=STATUS_WORDS[status],
            text=[f"{p.duration_weeks} wk" if planned else "" for p in chosen],
            textposition="inside",
            insidetextanchor="middle",
            customdata=[p.start_week + p.duration_weeks for p in chosen],
            hovertemplate="%{y}: weeks %{base} to %{customdata}<extra></extra>",
        )
    by_id = {p.id: p for p in phases}
    arrows = []
    for phase in phases:
        for dep in phase.depends_on:
            before = by_id.get(dep)
            # Only planned work holds a phase back: a satisfied or not-proposed one does not.
            if before is None or before.status != "planned" or phase.status != "planned":
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
    layout = titled_layout(
        "Roadmap timeline",
        "arrows: a phase waits for the one it depends on",
        xaxis={"title": {"text": "weeks from start"}, "rangemode": "tozero"},
        yaxis={"autorange": "reversed", "categoryorder": "array", "categoryarray": labels},
        barmode="overlay",
        annotations=arrows,
        height=max(300, 70 + 48 * len(phases)),
    )
    layout["margin"] = {**layout["margin"], "l": 210, "r": 30, "b": 90}
    layout["legend"] = {"orientation": "h", "y": -0.25, "x": 0}
    figure.update_layout(layout)
    return figure_entry("roadmap-gantt", figure)


def change_text(change) -> str:
    fraction = change.change_fraction
    if change.before is None or change.after is None:
        return f"{change.label}: {DASH}"
    if change.unit == "fraction":
        words = f"{change.label} {percent(change.before)} → {percent(change.after)}"
    else:
        unit = "" if change.unit == "USD" else f" {change.unit}"
        show = money if change.unit == "USD" else amount
        words = f"{change.label} {show(change.before)}{unit} → {show(change.after)}{unit}"
    if fraction is not None:
        words += f" ({fraction * 100:+.0f} %)"
    return words


def _priced(phase) -> bool:
    """The cost engine priced at least one of the phase's actions (stored results from before
    the phases said so carry 0.0 for unpriced work: the actions' cost_basis tells)."""
    return any(a.cost_basis == "engine" for a in phase.actions)


def phase_money(phase, value: float | None, *, per_year: bool = False) -> str:
    """A phase's capex or opex as the table shows it: never a zero that is not one."""
    if phase.status != "planned":
        return DASH
    if not _priced(phase) or value is None:
        shown = "not priced"
    elif abs(value) < 1.0:
        shown = "no BOM change"  # the cost engine's difference: no priced line changes
    else:
        shown = money(value)
    if phase.unpriced and not per_year:  # named once, in the capex column
        shown += f" + {len(phase.unpriced)} unpriced line{'s' if len(phase.unpriced) > 1 else ''}"
    return shown


def _savings(per_year: float | None) -> str:
    """A saving, or the net yearly cost when the action costs more than it saves."""
    if not per_year:
        return ""
    if per_year < 0:
        return f"net cost {money(-per_year)}/yr"
    return f"saves {money(per_year)}/yr"


def action_money(action) -> str:
    parts = [
        action.capex_usd and f"capex {money(action.capex_usd)}",
        action.opex_usd_per_year and f"opex {money(action.opex_usd_per_year)}/yr",
        _savings(action.savings_usd_per_year),
        action.payback_months and f"payback {action.payback_months:.0f} months",
    ]
    if action.spec_changes and action.cost_basis != "engine":
        parts.append("cost not priced by the engines")
    if action.unpriced:
        count = len(action.unpriced)
        parts.append(f"{count} unpriced line{'s' if count > 1 else ''}, named under the phase")
    return ", ".join(part for part in parts if part)


def phase_rows(roadmap: RoadmapResult) -> list[dict]:
    titles = {p.id: p.title for p in roadmap.phases}
    # A phase waits only for planned work (the Gantt's arrows likewise).
    planned = {p.id for p in roadmap.phases if p.status == "planned"}
    return [
        {
            "phase": p,
            "status": STATUS_WORDS[p.status],
            "weeks": f"{p.start_week}\u2013{p.start_week + p.duration_weeks}",
            "depends": ", ".join(titles[d] for d in p.depends_on if d in planned) or DASH,
            "capex": phase_money(p, p.capex_usd),
            "opex": phase_money(p, p.opex_usd_per_year, per_year=True),
            "changes": [change_text(c) for c in p.headline_change if c.before != c.after],
            "actions": [{"action": a, "money": action_money(a)} for a in p.actions],
        }
        for p in roadmap.phases
    ]


def capex_words(roadmap: RoadmapResult) -> str:
    """The plan's capex in the summary line: the priced part, and what is not priced."""
    planned = [p for p in roadmap.phases if p.status == "planned"]
    priced = [p.capex_usd or 0.0 for p in planned if _priced(p)]
    unpriced = sum(len(p.unpriced) for p in planned)
    if not priced:
        words = "no planned change is priced by the cost engine"
    elif abs(sum(priced)) < 1.0:
        words = "no planned change alters a priced bill-of-materials line"
    else:
        words = f"capex of the priced changes {money(sum(priced))}"
    if unpriced:
        words += f", plus {unpriced} unpriced bill-of-materials line{'s' if unpriced > 1 else ''}"
    return words


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
        "not_proposed": sum(p.status == "not-proposed" for p in roadmap.phases),
        "capex": capex_words(roadmap),
        # Stated once: the conventions of the expected changes (MFU against one peak).
        "conventions": sorted(
            {
                (c.label, c.convention)
                for p in roadmap.phases
                for c in p.headline_change
                if c.convention
            }
        ),
    }


def roadmap_for_api(data: dict | None) -> dict | None:
    """The stored roadmap as the API gives it: a phase's capex / opex is null unless the cost
    engine priced one of its actions (roadmaps stored before the engine said so carry 0.0),
    and each phase names its unpriced lines."""
    roadmap = parse_roadmap(data)
    if roadmap is None:
        return None
    unpriced = {"capex_usd": None, "opex_usd_per_year": None}
    phases = [
        p if p.status == "planned" and _priced(p) else p.model_copy(update=unpriced)
        for p in roadmap.phases
    ]
    return roadmap.model_copy(update={"phases": phases}).to_json()
