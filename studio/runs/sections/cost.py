"""Cost section: unit costs, TCO, capex, opex, breakeven, carbon and water; unpriced lines;
the cost by site of a multi-site design; the CSV of cost by item and year; owned vs cloud;
how the cost engine counts."""

from models_engine import CostResult
from studio.runs.sections.blocks import (
    NO_PRICE,
    Block,
    BulletList,
    Card,
    Cards,
    Column,
    Group,
    Paragraph,
    Row,
    cell,
    code,
    link,
    strong,
    table,
    text,
)
from studio.runs.sections.common import export_url, small
from studio.runs.sections.format import DASH, TIMES, amount, count, number, percent, usd
from studio.runs.selectors import TypedResults


def blocks(results: TypedResults, run=None) -> list[Block]:
    cost = results.cost
    if cost is None:
        return []
    built: list[Block] = [Cards(key_figures(cost), id="cost-key-figures")]
    if cost.summary.warnings or cost.unpriced_items:
        built.append(unpriced_group(cost))
    if sum(1 for site in cost.by_site if site.site_id) > 1:
        built.append(by_site_table(cost, results.fabric.totals.gpus if results.fabric else None))
    download = run and link(
        "Download cost by item and year (CSV)",
        export_url(run, "cost-by-year"),
        id="cost-by-year-csv",
    )
    rows = (
        f"· {len(cost.flat_table)} rows: capex, opex, depreciation and residual value per line "
        "and year"
    )
    built.append(Paragraph(text(download, download and " ", small(rows)), css="rc-downloads"))
    if cost.cloud_comparison.get("terms"):
        built += cloud_blocks(cost.cloud_comparison)
    built.append(energy_carbon_table(cost))
    if cost.assumptions:
        built.append(assumptions_group(cost))
    notes = counting_notes(cost)
    if notes:
        notes_list = BulletList(notes, css="small")
        built.append(Group([notes_list], summary="How the cost engine counts", css="rc-notes"))
    return built


def key_figures(cost: CostResult) -> list[Card]:
    summary, unit_costs, tco = cost.summary, cost.unit_costs, cost.tco
    cards = [
        Card(
            "Cost per delivered GPU-hour",
            usd(summary.cost_per_delivered_gpu_hour_usd, 2),
            "USD",
            f"at utilisation {percent(unit_costs.get('utilisation'))} {TIMES} goodput "
            f"{percent(unit_costs.get('goodput'), 2)} "
            f"({usd(unit_costs.get('cost_per_gpu_hour_usd'), 2)} per provisioned GPU-hour)",
        )
    ]
    if summary.training_run_cost_usd is not None and cost.training_run is not None:
        cards.append(
            Card(
                "Cost per training run",
                usd(summary.training_run_cost_usd),
                "USD",
                f"for {number(cost.training_run.wall_clock_days, 1)} days wall clock "
                f"({cost.training_run.time_to_train_source})",
            )
        )
    if summary.cost_per_million_tokens_usd is not None:
        inference = cost.inference or {}
        cards.append(
            Card(
                "Cost per million tokens",
                usd(summary.cost_per_million_tokens_usd, 2),
                "USD",
                f"served ({count(inference.get('tokens_per_s'))} tokens/s, "
                f"{inference.get('tokens_per_s_source')})",
            )
        )
    breakeven = summary.breakeven_month
    cards += [
        Card(
            "TCO (NPV)",
            usd(summary.tco_npv_usd),
            "USD",
            f"over {number(tco.get('horizon_years'), 1, trim=True)} years at "
            f"{percent(tco.get('discount_rate'), 1)} discount rate ({summary.ownership}); "
            f"nominal {usd(summary.tco_nominal_usd)}",
        ),
        Card(
            "Capex",
            usd(summary.capex_usd),
            "USD",
            f"({cost.capex.get('basis')}) · {_completeness_note(cost)}",
        ),
        Card("Opex", usd(summary.opex_usd_per_year), "USD per year", f"({cost.opex.get('basis')})"),
        Card(
            "Breakeven vs cloud",
            DASH if breakeven is None else f"month {breakeven}",
            note=f"owning ({summary.owned_model}) vs cloud {summary.breakeven_term}"
            if breakeven is not None
            else "no breakeven: no cloud price, or owning never pays back",
        ),
        Card(
            "Carbon",
            count(summary.carbon_tco2e_per_year),
            "tCO2e per year",
            f"({cost.carbon.get('method')})"
            + (
                f" · {count(cost.carbon['per_run_tco2e'])} tCO2e per run"
                if cost.carbon.get("per_run_tco2e")
                else ""
            ),
        ),
        Card(
            "Water",
            count(summary.water_m3_per_year),
            "m³ per year",
            f"at WUE {number(cost.water.get('wue_l_per_kwh'), 2, trim=True)} L/kWh "
            f"({cost.water.get('wue_source')})",
        ),
    ]
    return cards


def _completeness_note(cost: CostResult) -> str:
    """How much of the capex rests on prices and how much on allowances; lines with neither
    are counted, never hidden."""
    summary, complete = cost.summary, cost.completeness
    share = summary.capex_priced_share_by_value
    parts = [
        f"{percent(share)} priced by value" if share is not None else "nothing to price",
    ]
    if complete.get("allowance_usd"):
        lines = summary.allowance_lines_count
        parts.append(
            f"{usd(complete['allowance_usd'])} in {lines} allowance line{'s' * (lines != 1)}"
        )
    left = len(complete.get("unpriced_not_covered", []))
    parts.append(
        f"{left} line{'s' * (left != 1)} with no price or allowance left out"
        if left
        else "every line priced"
    )
    return ", ".join(parts)


UNPRICED_COLUMNS = [
    Column("part"),
    Column("item"),
    Column("catalog id"),
    Column("quantity", "unit in the next column", numeric=True),
    Column("unit"),
    Column("covered by an allowance"),
]


def unpriced_group(cost: CostResult) -> Group:
    summary, items = cost.summary, cost.unpriced_items
    lines = summary.unpriced_items_count
    inner: list[Block] = [
        Paragraph(
            text(
                strong("Unpriced items:"),
                f" {lines} line{'s' * (lines != 1)} have no price; "
                f"{summary.unpriced_not_covered_count} of them are not covered by an allowance "
                "and are left out of the totals.",
            )
        )
    ]
    if summary.warnings:
        inner.append(BulletList([text(w) for w in summary.warnings]))
    if items:
        rows = [
            [
                item.get("part"),
                item.get("item"),
                code(item["catalog_id"]) if item.get("catalog_id") else DASH,
                number(item.get("quantity"), 2, trim=True),
                item.get("unit"),
                cell("yes", "ok")
                if item.get("covered_by_allowance")
                else cell("no: excluded", "bad"),
            ]
            for item in items
        ]
        summary_text = f"Show the {len(items)} unpriced line{'s' * (len(items) != 1)}"
        inner.append(
            Group(
                [table("cost-unpriced-items", UNPRICED_COLUMNS, rows, scroll=False)],
                summary=summary_text,
            )
        )
    return Group(inner, id="cost-unpriced", css="rc-warning")


BY_SITE_COLUMNS = [
    Column("site"),
    Column("GPUs", "count", numeric=True),
    Column("capex", "USD", numeric=True),
    Column("opex", "USD/year", numeric=True),
    Column("power price", "USD/kWh", numeric=True),
    Column("facility energy", "MWh/year", numeric=True),
    Column("carbon", "tCO2e/year", numeric=True),
    Column("unpriced lines", "count", numeric=True),
]


def by_site_table(cost: CostResult, gpus: int | None = None):
    """The owned build's cost at each site and cluster-wide, with the engine's totals
    (`gpus`: the fabric engine's cluster total)."""
    rows = [
        [
            text(code(site.site_id), " ", site.site_name) if site.site_id else site.site_name,
            count(site.gpus) if site.site_id else DASH,
            count(site.capex_usd),
            count(site.opex_usd_per_year),
            number(site.power_usd_per_kwh, 4),
            count(site.facility_energy_mwh_per_year),
            count(site.carbon_tco2e_per_year),
            count(site.unpriced_count),
        ]
        for site in cost.by_site
    ]
    summary = cost.summary
    totals = [
        "Total",
        count(gpus),
        count(summary.capex_usd),
        count(summary.opex_usd_per_year),
        DASH,
        DASH,
        count(summary.carbon_tco2e_per_year),
        count(summary.unpriced_items_count),
    ]
    return table("cost-by-site", BY_SITE_COLUMNS, rows, totals=totals, caption="Cost by site")


CLOUD_COLUMNS = [
    Column("cloud term"),
    Column("offer"),
    Column("price", "USD/GPU-hour", numeric=True),
    Column("cost", "USD/year", numeric=True),
    Column("TCO NPV", "USD", numeric=True),
    Column("per delivered GPU-hour", "USD", numeric=True),
    Column("owned minus cloud, NPV", "USD", numeric=True),
    Column("breakeven", "month", numeric=True),
]


def _offer(term: dict):
    if not term.get("available"):
        return NO_PRICE
    offer = term.get("provider") or term.get("price_source") or ""
    catalog_id = term.get("catalog_id")
    return text(offer, catalog_id and " ", catalog_id and code(catalog_id, "small"))


def cloud_blocks(comparison: dict) -> list[Block]:
    owned = Row(
        [
            cell(f"owned ({comparison.get('owned_model')})"),
            cell(""),
            cell(""),
            cell(""),
            cell(count(comparison.get("owned_tco_npv_usd"))),
            cell(number(comparison.get("owned_cost_per_delivered_gpu_hour_usd"), 2)),
            cell(""),
            cell(""),
        ],
        "rc-chosen",
    )
    rows = [owned] + [
        [
            term.get("term"),
            _offer(term),
            number(term.get("usd_per_gpu_hour"), 2),
            count(term.get("cost_usd_per_year")),
            count(term.get("tco_npv_usd")),
            number(term.get("cost_per_delivered_gpu_hour_usd"), 2),
            count(term.get("owned_minus_cloud_npv_usd")),
            count(term.get("breakeven_month")),
        ]
        for term in comparison["terms"]
    ]
    built: list[Block] = [table("cost-cloud-terms", CLOUD_COLUMNS, rows, caption="Owned vs cloud")]
    market = comparison.get("market_range")
    if market:
        built.append(
            Paragraph(
                text(
                    f"Market: {market.get('offers')} offers from "
                    f"{usd(market.get('min_usd_per_gpu_hour'), 2)} to "
                    f"{usd(market.get('max_usd_per_gpu_hour'), 2)} per GPU-hour (median "
                    f"{usd(market.get('median_usd_per_gpu_hour'), 2)}). "
                    f"{comparison.get('basis', '')}"
                ),
                css="muted small",
            )
        )
    return built


ENERGY_COLUMNS = [
    Column("boundary"),
    Column("energy", "MWh/year", numeric=True),
    Column("energy per run", "MWh", numeric=True),
    Column("what it counts"),
]


def energy_carbon_table(cost: CostResult):
    """Energy at the GPU, IT and facility boundaries (facility engine), per year and per run,
    and carbon by the GHG Protocol Scope 2 methods, as model cards and Scope 2 reports use."""
    carbon = cost.carbon
    per_year = carbon.get("energy_mwh_per_year") or {}
    run = carbon.get("per_run") or {}
    rows = [
        [
            boundary.upper() if boundary != "facility" else "Facility",
            count(per_year.get(boundary)),
            count(run.get(f"{boundary}_energy_mwh")) if run else DASH,
            (carbon.get("boundaries") or {}).get(boundary, ""),
        ]
        for boundary in ("gpu", "it", "facility")
    ]
    rows += [
        [
            method,
            count(carbon.get(f"{key}_per_year")),
            count(run.get(key)) if run and run.get(key) is not None else DASH,
            "tCO2e (per year, per run)",
        ]
        for method, key in (
            ("Carbon, location-based", "tco2e"),
            ("Carbon, market-based", "market_based_tco2e"),
            ("Carbon at the marginal rate", "marginal_tco2e"),
        )
    ]
    return table(
        "cost-energy-carbon",
        ENERGY_COLUMNS,
        rows,
        caption=f"Energy at three boundaries and carbon ({carbon.get('method')})",
    )


ASSUMPTION_COLUMNS = [
    Column("assumption"),
    Column("value"),
    Column("unit"),
    Column("date"),
    Column("sources"),
]


def _assumption_value(entry: dict) -> str:
    value = entry.get("value")
    if isinstance(value, dict):
        return ", ".join(f"{key} {_plain_value(item)}" for key, item in sorted(value.items()))
    return _plain_value(value)


def _plain_value(value) -> str:
    """`11,700,000` and `0.05`, not `11700000.0`; words as they are."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return amount(value)
    return str(value)


def _source_text(source: dict) -> str:
    return f"{source.get('title')} ({source.get('date')}, {source.get('note') or 'stated'})"


def assumptions_group(cost: CostResult) -> Group:
    """Every cost default with its value, date and sources; a design's own figure is marked."""
    rows = []
    for entry in cost.assumptions:
        sources = entry.get("sources") or []
        dates = [source.get("date", "") for source in sources]
        rows.append(
            [
                text(code(entry.get("id", "")), " ", entry.get("name", "")),
                cell("design figure: " + _assumption_value(entry), "bad")
                if entry.get("overridden")
                else _assumption_value(entry),
                entry.get("unit"),
                max(dates) if dates else DASH,
                "; ".join(_source_text(source) for source in sources),
            ]
        )
    return Group(
        [table("cost-assumptions", ASSUMPTION_COLUMNS, rows, scroll=True)],
        summary=f"Cost assumptions: {len(rows)} sourced, dated defaults "
        "(override any with economics.cost_assumptions)",
        id="cost-assumptions",
    )


def counting_notes(cost: CostResult) -> list:
    notes = []
    basis = cost.tco_over_time.get("basis")
    if basis:
        notes.append(text(f"Cumulative cost chart: {basis}."))
    notes += [text(str(note)) for note in cost.conventions]
    notes += [
        text("Derived input ", code(derived.get("input", "")), f": {derived.get('how')}")
        for derived in cost.derived_inputs
    ]
    return notes
