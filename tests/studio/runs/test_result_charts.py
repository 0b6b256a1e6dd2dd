"""Result charts and section templates for the fabric, facility, storage, reliability, regions
and cost engines, checked against every example design: each figure says what it shows (title),
every numeric axis has a unit, only SVG trace types are used (the CSP forbids WebGL's eval), a
builder returns None only when its data is genuinely absent, and the plotted numbers are the
engine's own. Builders read the typed results (`studio.runs.selectors.parse_results`); a
multi-site design gets per-site figures. The section templates render for every example without
a database."""

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

import models_engine
from studio.runs.charts import (
    built_figures,
    cost,
    fabric,
    facility,
    regions,
    reliability,
    run_sections,
    storage,
)
from studio.runs.charts.common import MAIN_TITLE_CHARS
from studio.runs.selectors import TypedResults, parse_results
from studio.runs.views import results_context

EXAMPLES = sorted((Path(__file__).resolve().parents[3] / "examples").glob("*.json"))
MODULES = [fabric, facility, storage, reliability, regions, cost]
SECTIONS = [module.SECTION for module in MODULES]
SVG_TRACE_TYPES = {"bar", "scatter", "waterfall", "heatmap"}
UNIT = re.compile(r"\(.+\)")


@pytest.fixture(scope="module", params=EXAMPLES, ids=[p.stem for p in EXAMPLES])
def example(request) -> dict:
    return json.loads(request.param.read_text())


@pytest.fixture(scope="module")
def results(example) -> dict:
    return models_engine.evaluate(example)


@pytest.fixture(scope="module")
def typed(results) -> TypedResults:
    parsed = parse_results(results)
    assert parsed is not None
    return parsed


def _absent(figure_id: str, results: dict) -> bool:
    """True when the engine results hold nothing for this figure to show."""
    reliability_results = results["reliability"]
    regions_results = results["regions"]
    single_site = len(regions_results["sites"]) < 2
    return {
        "reliability-goodput-interval": not reliability_results.get("checkpoint"),
        "reliability-monte-carlo": not (reliability_results.get("monte_carlo") or {}).get("runs"),
        "regions-sites": single_site,
        "regions-strategies": not regions_results.get("cross_region"),
        "regions-egress": single_site,
    }.get(figure_id, False)


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _numeric(values) -> bool:
    if isinstance(values, dict):  # a typed array ({"dtype": ..., "bdata": ...})
        return True
    return any(_is_number(v) for v in values or [])


def _axis_key(trace: dict, letter: str) -> str:
    ref = trace.get(f"{letter}axis", letter)
    return f"{letter}axis{ref[1:]}"


def assert_readable(spec: dict, label: str) -> None:
    layout = spec["layout"]
    title = (layout.get("title") or {}).get("text", "")
    assert title.strip(), f"{label}: figure without a title"
    numeric_axes: dict[str, bool] = {}
    for trace in spec["data"]:
        kind = trace.get("type", "scatter")
        assert kind in SVG_TRACE_TYPES, f"{label}: trace type {kind} is not SVG"
        for letter in "xy":
            key = _axis_key(trace, letter)
            numeric_axes[key] = numeric_axes.get(key, False) or _numeric(trace.get(letter))
    assert numeric_axes, f"{label}: no traces"
    for key, numeric in numeric_axes.items():
        axis = layout.get(key) or {}
        if axis.get("visible") is False:
            continue
        text = (axis.get("title") or {}).get("text", "")
        assert text.strip(), f"{label}: {key} has no title"
        if numeric and axis.get("type") != "category":
            assert UNIT.search(text), f"{label}: {key} title {text!r} has no unit in parentheses"


def test_every_builder_draws_a_readable_svg_figure(results, typed):
    drawn = 0
    sites = len(typed.fabric.sites)
    for key, title, builders in SECTIONS:
        assert key in results and title
        for figure_id, build in builders:
            figures = built_figures(build, figure_id, typed)
            label = f"{results['spec_hash'][:8]} {figure_id}"
            if not figures:
                assert _absent(figure_id, results), f"{label}: None although the data is there"
                continue
            assert not _absent(figure_id, results), f"{label}: drawn from absent data"
            if key in ("fabric", "facility", "storage") and len(figures) > 1:
                assert len(figures) == sites, f"{label}: one figure per site"
            for entry_id, figure in figures:
                assert_readable(json.loads(figure.to_json()), f"{label} {entry_id}")
                drawn += 1
    assert drawn >= 14


def test_builders_return_none_without_results():
    for _key, _title, builders in SECTIONS:
        for figure_id, build in builders:
            assert build(TypedResults()) is None, figure_id


def test_a_multi_site_design_gets_a_figure_per_site():
    path = next(p for p in EXAMPLES if p.stem == "two-region-hierarchical")
    typed = parse_results(models_engine.evaluate(json.loads(path.read_text())))
    site_ids = [site.site_id for site in typed.fabric.sites]
    assert len(site_ids) == 2
    for figure_id, build in (
        ("fabric-diagram", fabric.fabric_diagram_figure),
        ("facility-rack-power", facility.rack_power_figure),
        ("facility-cooling", facility.cooling_figure),
    ):
        figures = built_figures(build, figure_id, typed)
        assert [entry_id for entry_id, _f in figures] == [f"{figure_id}-{s}" for s in site_ids]
        for (_entry_id, figure), site in zip(figures, typed.fabric.sites, strict=True):
            assert _spec(figure)["layout"]["title"]["text"].startswith(site.site_name)
    # IT power: one bar per site and component, each the site's own figure.
    bars = _spec(facility.it_power_figure(typed))["data"]
    assert [bar["name"] for bar in bars] == [site.site_name for site in typed.facility.sites]
    for bar, site in zip(bars, typed.facility.sites, strict=True):
        assert bar["y"][0] == site.power.it_kw.gpus


def test_section_ids_are_unique_and_match_the_section_templates():
    ids = [figure_id for _k, _t, builders in SECTIONS for figure_id, _b in builders]
    assert len(ids) == len(set(ids))
    for key, _title, builders in SECTIONS:
        assert all(figure_id.startswith(f"{key}-") for figure_id, _b in builders)


def _spec(figure) -> dict:
    return json.loads(figure.to_json())


def test_plotted_numbers_are_the_engines_own(results, typed):
    # Racks: one bar per rack group at the engine's kW, limit line at the engine's limit.
    for site in typed.facility.sites:
        bar = _spec(facility.site_rack_power_figure(site))["data"][0]
        assert bar["y"] == [r["kw"] for r in site.racks]
        limit = _spec(facility.site_rack_power_figure(site))["layout"]["shapes"][0]
        assert limit["y0"] == site.rack_summary.rack_power_limit_kw
    # Capex waterfall: the total bar is the engine's total (absolute), not a plotly sum.
    waterfall = results["cost"]["waterfall"]
    trace = _spec(cost.capex_waterfall_figure(typed))["data"][0]
    assert trace["measure"][-1] == "absolute"
    assert trace["y"][-1] == pytest.approx(waterfall["total_usd"] / 1e6)
    assert trace["y"][:-1] == pytest.approx([s["usd"] / 1e6 for s in waterfall["steps"]])
    # Tornado: the engine's deltas, in USD million.
    rows = results["cost"]["sensitivity"]["rows"]
    tornado = _spec(cost.sensitivity_tornado_figure(typed))["data"]
    assert sorted(tornado[0]["x"]) == pytest.approx(
        sorted(r["tco_delta_low_usd"] / 1e6 for r in rows)
    )
    # Fabric diagram of each site: the switch and link counts of that site's diagram are drawn.
    for site in typed.fabric.sites:
        texts = " ".join(
            a["text"] for a in _spec(fabric.site_diagram_figure(site))["layout"]["annotations"]
        )
        for tier in site.diagram["tiers"]:
            if "switches" in tier:
                assert f"{tier['switches']:,} switches" in texts
        for link in site.diagram["links"]:
            assert f"{link['links']:,} links" in texts
    # Goodput curve: the engine's curve and its optimum.
    goodput = reliability.goodput_curve_figure(typed)
    if goodput is not None:
        data = _spec(goodput)["data"]
        assert data[0]["y"] == [p["goodput"] for p in results["reliability"]["goodput_vs_interval"]]
        optimum = results["reliability"]["checkpoint"]["goodput_optimum"]
        assert data[1]["x"] == [optimum["interval_min"]]


def test_breakeven_month_is_marked_when_the_engine_gives_one(results, typed):
    series = results["cost"]["tco_over_time"]
    layout = _spec(cost.tco_over_time_figure(typed))["layout"]
    lines = [s for s in layout.get("shapes", []) if s.get("type") == "line"]
    month = series.get("headline_breakeven_month")
    if month is None:
        assert not lines
    else:
        assert [s["x0"] for s in lines] == [month]
        assert any(f"month {month}" in a["text"] for a in layout["annotations"])


def test_monte_carlo_histogram_when_the_engine_ran_it():
    from tests.engine.reliability_inputs import reliability_of

    doc = json.loads(next(p for p in EXAMPLES if p.stem == "h100-256-onprem-starter").read_text())
    typed = reliability_of(doc, monte_carlo_runs=300, seed=3)
    monte_carlo = typed.monte_carlo
    assert monte_carlo["runs"] == 300
    figure = reliability.monte_carlo_figure(TypedResults(reliability=typed))
    spec = _spec(figure)
    assert_readable(spec, "monte carlo")
    assert spec["data"][0]["y"] == [b["runs"] for b in monte_carlo["histogram"]]
    without = typed.model_copy(update={"monte_carlo": {"runs": 0}})
    assert reliability.monte_carlo_figure(TypedResults(reliability=without)) is None


def _run(results: dict, spec: dict) -> SimpleNamespace:
    return SimpleNamespace(
        pk=1,
        results=results,
        figures=None,
        revision=SimpleNamespace(design=SimpleNamespace(pk=1), spec=spec),
    )


@pytest.mark.django_db  # the page stores the figures it builds on the run (none here: pk 1 absent)
def test_section_templates_render(example, results, typed):
    run = _run(results, example)
    context = {"run": run, **results_context(run)}
    pages = {}
    for key, _title, _builders in SECTIONS:
        html = render_to_string(f"runs/sections/_{key}.html", context)
        assert html.strip(), key
        assert "None" not in html, f"{key}: a missing value printed as None"
        pages[key] = html
    assert reverse("export-run-table", args=[1, "bom", "csv"]) in pages["fabric"]
    assert reverse("export-run-table", args=[1, "cost-by-year", "csv"]) in pages["cost"]
    bom = results["fabric"]["bom"]
    assert pages["fabric"].count("<tr><td>") >= len(bom)
    if any(b["unit_price_usd"] is None for b in bom):
        assert "no price" in pages["fabric"]
    for domain in results["reliability"]["failure_domains"]:
        assert f"<code>{domain['domain']}</code>" in pages["reliability"]
    for site in results["regions"]["sites"]:
        assert f"<code>{site['id']}</code>" in pages["regions"]
    if len(results["regions"]["sites"]) < 2:
        assert 'id="regions-single-site"' in pages["regions"]
    else:
        assert 'id="regions-wan-links"' in pages["regions"]
        assert 'id="regions-recommendation"' in pages["regions"]
        for finding in results["regions"]["residency_findings"]:
            assert finding["rule"] in pages["regions"]
    if results["cost"]["unpriced_items"]:
        assert 'id="cost-unpriced"' in pages["cost"]
    # Per-site figures: one site looks as before; several get a table with every site + totals.
    if len(typed.fabric.sites) > 1:
        for section, table_id in (("fabric", "fabric-sites"), ("facility", "facility-sites")):
            assert f'id="{table_id}"' in pages[section]
            for site in typed.fabric.sites:
                assert f"<code>{site.site_id}</code> {site.site_name}" in pages[section]
            assert f"Total ({len(typed.fabric.sites)} sites)" in pages[section]
        assert 'id="storage-sites"' in pages["storage"]
        assert "<th>site</th>" in pages["fabric"]  # the BOM's site column
    else:
        for section in ("fabric", "facility", "storage"):
            assert f'id="{section}-sites"' not in pages[section]
        assert "<th>site</th>" not in pages["fabric"]


def test_section_templates_render_without_results():
    """A run without (current) results renders every section empty, without an error."""
    run = _run({"headline": {}}, {})
    context = {"run": run, **results_context(run)}
    for key, _title, _builders in SECTIONS:
        render_to_string(f"runs/sections/_{key}.html", context)


def _title_lines(text: str) -> tuple[list[str], list[str]]:
    """(main lines, detail lines) of a title as plain text; the detail is the grey <span>."""
    main, span, detail = text.partition("<span")
    detail = span + detail
    plain = [re.sub(r"<[^>]+>", "", line).strip() for line in main.split("<br>")]
    detail_lines = [re.sub(r"<[^>]+>", "", line).strip() for line in detail.split("<br>")]
    return [line for line in plain if line], [line for line in detail_lines if line]


def test_every_title_fits_its_panel_and_log_axes_label_whole_numbers(typed):
    """Seen in the browser: every two-line title had its first line cut at the top of the
    panel (plotly's automargin places it from the first baseline), and long one-line titles
    ran off the right edge. A title now hangs from the container's top inside a margin sized
    for its lines, no line is longer than a half-width panel holds, and a log axis labels
    20 and 50 in full (not a small "2" and "5" that mean 20 and 50)."""
    for section in run_sections(typed):
        for entry in section["figures"]:
            layout, label = entry["spec"]["layout"], entry["id"]
            title = layout["title"]
            assert not title.get("automargin"), label
            assert (title["yref"], title["y"], title["yanchor"]) == ("container", 1, "top"), label
            main, detail = _title_lines(title["text"])
            assert main and all(len(line) <= MAIN_TITLE_CHARS + 4 for line in main), (label, main)
            assert all(len(line) <= 95 for line in detail), (label, detail)
            room = title["pad"]["t"] + 18 * 1.3 * len(main) + 12 * 1.3 * len(detail)
            assert room <= layout["margin"]["t"], (label, room, layout["margin"]["t"])
            for key in ("xaxis", "yaxis"):
                axis = layout.get(key) or {}
                if axis.get("type") == "log" and "dtick" not in axis:
                    raise AssertionError(f"{label} {key}: log axis with plotly's digit labels")
