"""Shared look of every results chart: font, margins, titles that say what is shown."""

import json

import plotly.graph_objects as go

from studio.core.inputs import plain_label

FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 13}
SEVERITY_COLOURS = {
    "critical": "#7a271a",
    "high": "#d92d20",
    "medium": "#f79009",
    "low": "#fdb022",
    "info": "#98a2b3",
}
STATUS_COLOURS = {
    "PASS": "#12b76a",
    "FAIL": "#d92d20",
    "ACCEPTED_RISK": "#9e77ed",
    "MANUAL": "#98a2b3",
    "NOT_APPLICABLE": "#d0d5dd",
}


# Log axes label 1, 2 and 5 of each decade in full (20, 50, 1,000): plotly's default labels
# every digit in small type (a "4" above "10" that means 40).
LOG_TICKS = {"type": "log", "dtick": "D2", "tickformat": ",~g"}

# Plotly does not wrap titles (a long line is cut at the panel's right edge): a main title is
# broken at about this many characters, which fit a half-width chart of the results page.
MAIN_TITLE_CHARS = 55


def base_layout(title: str, **axes) -> dict:
    """Title left-aligned in a top margin sized for its lines (never clipped at the panel's
    edge); the legend below the plot, anchored under the x-axis title (never on top of it)."""
    title_layout, top = anchored_title(title)
    return {
        "title": title_layout,
        "font": FONT,
        "margin": {"l": 70, "r": 30, "t": top, "b": 60},
        "legend": {"orientation": "h", "yanchor": "top", "y": -0.3, "x": 0, "xanchor": "left"},
        "xaxis": {"automargin": True},
        "yaxis": {"automargin": True},
        **{k: _automargin(v) if k.startswith(("xaxis", "yaxis")) else v for k, v in axes.items()},
    }


def anchored_title(text: str) -> tuple[dict, int]:
    """(layout title, top margin it needs): plain text wrapped to a half-width panel (markup
    keeps the caller's own breaks), pinned below the container's top edge. With `automargin`
    plotly.js places a title of two or more lines from its first line's baseline, which puts
    that first line above the canvas (cut in half on every results chart with a detail line)."""
    if "<" not in text:
        text = _wrapped(text, MAIN_TITLE_CHARS)
    return _title_dict(text), _top_margin(text.count("<br>") + 1)


def _title_dict(text: str) -> dict:
    return {
        "text": text,
        "x": 0.01,
        "xanchor": "left",
        "yref": "container",
        "y": 1,
        "yanchor": "top",
        "pad": {"t": 24},
    }


def _top_margin(main_lines: int, detail_lines: int = 0) -> int:
    """Room for the title: 60 px for one main line, 24 px per further main line (18 px type),
    25 px for the first 12 px detail line and 16 px for each further one."""
    margin = 60 + 24 * (main_lines - 1)
    if detail_lines:
        margin += 25 + 16 * (detail_lines - 1)
    return margin


def _automargin(axis):
    return {"automargin": True, **axis} if isinstance(axis, dict) else axis


def money_axis(values) -> dict:
    """Axis ticks for money: `$0.50`, `$12`, `$850k`, `$1.2M` (two significant digits)."""
    top = max((abs(v) for v in values if isinstance(v, int | float)), default=0)
    if top >= 1000:
        return {"tickprefix": "$", "tickformat": "~s"}
    if top >= 10:
        return {"tickprefix": "$", "tickformat": ",.0f"}
    return {"tickprefix": "$", "tickformat": ",.2f"}


def short_name(name: str, limit: int = 22) -> str:
    """A long design name cut for a legend or an axis (the full name stays in the hover)."""
    return name if len(name) <= limit else name[: limit - 1].rstrip() + "…"


def figure_entry(figure_id: str, figure: go.Figure) -> dict:
    return {
        "id": figure_id,
        "script_id": f"figure-{figure_id}",
        "spec": json.loads(figure.to_json()),
    }


def titled_layout(main: str, detail: str | None = None, **axes) -> dict:
    """base_layout with a short title and, on a smaller second line, the figures behind it."""
    if not detail:
        return base_layout(main, **axes)
    main = _wrapped(main, MAIN_TITLE_CHARS)
    detail = _wrapped(detail)
    layout = base_layout(
        f"{main}<br><span style='font-size:12px;color:#667085'>{detail}</span>", **axes
    )
    top = _top_margin(main.count("<br>") + 1, detail.count("<br>") + 1)
    layout["margin"] = {**layout["margin"], "t": top}
    return layout


def site_prefix(name: str, multi_site: bool) -> str:
    """Title prefix of a per-site figure: the site's name when the design has several."""
    return f"{plain_label(name)}: " if multi_site else ""


def per_site(figures: list[tuple[str, go.Figure | None]]):
    """One site's figure as is; several sites' as [(site id, figure)]; None if none drawn."""
    drawn = [(site_id, figure) for site_id, figure in figures if figure is not None]
    if not drawn:
        return None
    if len(figures) == 1:
        return drawn[0][1]
    return drawn


def _wrapped(detail: str, width: int = 90) -> str:
    """A long second title line broken into lines of about `width` characters (Plotly does
    not wrap titles: an unbroken line is clipped at the panel's edge)."""
    lines, line = [], ""
    for word in detail.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    return "<br>".join(lines)
