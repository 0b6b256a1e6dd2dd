"""The figure as printed: the title hangs from the top edge (kaleido draws the first line of a
two-line automargin title above the canvas), no hover hints, plain text, the bundled font."""

import json

import plotly.graph_objects as go

import models_engine
from studio.reports.pdf import FONT_FAMILY, print_figure
from studio.reports.roadmap import gantt_figure, parse_roadmap
from studio.runs.charts.common import titled_layout
from tests.conftest import example_spec


def two_line_title_figure() -> dict:
    figure = go.Figure(go.Bar(x=["a"], y=[1]))
    figure.update_layout(
        titled_layout("Scale-out fabric", "12 switches<sup>2</sup> · hover a box for its tier")
    )
    return json.loads(figure.to_json())


def test_printed_title_is_anchored_at_the_top_inside_the_reserved_margin():
    spec = two_line_title_figure()
    printed = print_figure(spec)
    title = printed["layout"]["title"]
    assert title["automargin"] is False
    assert (title["yref"], title["y"], title["yanchor"]) == ("container", 1, "top")
    # Two lines of 18 px and 12 px type below the pad fit in the margin titled_layout keeps.
    assert title["pad"]["t"] + 18 * 1.3 + 12 * 1.3 < printed["layout"]["margin"]["t"]
    assert "hover" not in title["text"] and "Scale-out fabric" in title["text"]
    assert "^2" in title["text"] and "<sup>" not in title["text"]
    assert printed["layout"]["font"]["family"] == FONT_FAMILY
    assert "hover" in spec["layout"]["title"]["text"]  # the web's figure is not touched


def test_roadmap_timeline_title_fits_above_the_bars():
    """The roadmap's one-line 66-character title ran past a half-width panel; as a main line
    and a detail line it needs the taller top margin, which the chart's own margins keep."""
    roadmap = parse_roadmap(
        models_engine.evaluate_roadmap(example_spec("h100-256-onprem-starter")).to_json()
    )
    layout = gantt_figure(roadmap)["spec"]["layout"]
    assert layout["title"]["text"].startswith("Roadmap timeline<br>")
    assert layout["title"]["yanchor"] == "top" and not layout["title"].get("automargin")
    assert layout["margin"]["t"] >= 85 and layout["margin"]["l"] == 210
