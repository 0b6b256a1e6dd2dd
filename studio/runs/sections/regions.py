"""Regions section: the sites with their grid and prices, the WAN links, the cross-site
training strategy and its alternatives, egress, dataset placement and residency findings."""

from models_engine import RegionsResult
from studio.runs.sections.blocks import (
    BR,
    Block,
    Column,
    Heading,
    Paragraph,
    Row,
    badge,
    cell,
    code,
    findings_list,
    muted,
    severity,
    strong,
    table,
    text,
)
from studio.runs.sections.common import small
from studio.runs.sections.format import (
    DASH,
    amount,
    count,
    number,
    percent_number,
    usd,
    yes_no,
)
from studio.runs.selectors import TypedResults


def blocks(results: TypedResults, run=None) -> list[Block]:
    regions = results.regions
    if regions is None:
        return []
    built: list[Block] = [sites_table(regions)]
    if len(regions.sites) < 2:
        built.append(
            Paragraph(
                text(
                    "Single site: no cross-site training traffic, WAN strategy or egress to "
                    "compare."
                ),
                id="regions-single-site",
                css="muted",
            )
        )
    if regions.wan_links:
        built.append(wan_links_table(regions))
    if regions.cross_region:
        built += cross_region_blocks(regions.cross_region)
    if regions.egress.get("total_tb_per_month"):
        built.append(egress_paragraph(regions.egress))
    if regions.datasets:
        built.append(datasets_table(regions))
    if regions.residency_findings:
        built.append(residency_table(regions))
    built += findings_list(regions.findings, "regions-findings")
    if regions.assumptions:
        assumptions = "Assumptions: " + " · ".join(regions.assumptions)
        built.append(Paragraph(text(assumptions), css="muted small"))
    return built


SITE_COLUMNS = [
    Column("site"),
    Column("name"),
    Column("jurisdiction"),
    Column("GPUs", "count", numeric=True),
    Column("GPU share", "%", numeric=True),
    Column("power price", "USD/kWh", numeric=True),
    Column("grid carbon", "gCO2e/kWh", numeric=True),
    Column("marginal carbon", "gCO2e/kWh", numeric=True),
    Column("climate"),
    Column("water stress"),
    Column("figures from"),
]


def _figures_from(site: dict) -> str:
    """Where the site's price, carbon and climate come from (catalog region, default, design)."""
    sources = site.get("figure_sources") or {}
    labels = {
        "power_price_usd_per_kwh": "price",
        "carbon_gco2e_per_kwh": "carbon",
        "climate": "climate",
    }
    return "; ".join(f"{label}: {sources[key]}" for key, label in labels.items() if key in sources)


def _jurisdiction(site: dict) -> str:
    country = site.get("country")
    if country and country != site.get("jurisdiction"):
        return f"{site.get('jurisdiction')} ({country})"
    return site.get("jurisdiction") or ""


def sites_table(regions: RegionsResult):
    rows = [
        [
            code(site["id"]),
            site.get("name"),
            _jurisdiction(site),
            count(site.get("gpus")),
            percent_number(site.get("gpu_share"), 1),
            number(site.get("power_price_usd_per_kwh"), 4),
            number(site.get("carbon_gco2e_per_kwh"), 1),
            number(site.get("carbon_marginal_gco2e_per_kwh"), 1),
            site.get("climate") or DASH,
            site.get("water_stress") or DASH,
            small(_figures_from(site)),
        ]
        for site in regions.sites
    ]
    return table("regions-sites", SITE_COLUMNS, rows, caption="Sites")


WAN_COLUMNS = [
    Column("from"),
    Column("to"),
    Column("bandwidth", "Gb/s", numeric=True),
    Column("RTT", "ms", numeric=True),
    Column("egress price", "USD/GB", numeric=True),
    Column("carries training traffic"),
    Column("gradients", "TB/month", numeric=True),
    Column("average utilisation", "%", numeric=True),
]


def wan_links_table(regions: RegionsResult):
    rows = [
        [
            code(link["from_site"]),
            code(link["to_site"]),
            count(link.get("bandwidth_gbps")),
            number(link.get("rtt_ms"), 1, trim=True),
            number(link.get("egress_usd_per_gb"), 3, trim=True),
            yes_no(link.get("carries_training_traffic")),
            amount(link.get("gradient_tb_per_month")),
            percent_number(link.get("average_utilisation"), 2),
        ]
        for link in regions.wan_links
    ]
    return table("regions-wan-links", WAN_COLUMNS, rows, caption="WAN links")


STRATEGY_COLUMNS = [
    Column("strategy"),
    Column("exchange every", "steps", numeric=True),
    Column("WAN time per exchange", "s", numeric=True),
    Column("traffic per step", "bytes", numeric=True),
    Column("step time", "s", numeric=True),
    Column("step-time increase", "%", numeric=True),
    Column("staleness", "steps", numeric=True),
    Column("note"),
]


def cross_region_blocks(cross: dict) -> list[Block]:
    recommendation, chosen = cross.get("recommendation", {}), cross.get("strategy_chosen")
    recommended = recommendation.get("strategy")
    interval = recommendation.get("averaging_interval_steps")
    viable = "is" if cross.get("synchronous_viable") else "is not"
    paragraph = Paragraph(
        text(
            strong(f"Recommendation: {recommended}"),
            interval and f" (average every {count(interval)} steps)",
            f": {recommendation.get('reason')}. ",
            muted("The design uses "),
            strong(chosen or ""),
            muted(
                (" (differs from the recommendation)" if chosen != recommended else "")
                + f"; synchronous WAN all-reduce {viable} viable "
                f"({number(cross.get('synchronous_wan_allreduce_s'), 2)} s per all-reduce over "
                f"{count(cross.get('bottleneck_bandwidth_gbps'))} Gb/s, "
                f"RTT {number(cross.get('ring_rtt_ms'), 1, trim=True)} ms)."
            ),
        ),
        id="regions-recommendation",
    )
    rows = []
    for strategy in cross.get("strategies", []):
        name = strategy["strategy"]
        label = text(
            name,
            name == chosen and " ",
            name == chosen and badge("chosen"),
            name == recommended and " ",
            name == recommended and badge("recommended"),
        )
        cells = [
            label,
            count(strategy.get("exchange_every_steps")),
            number(strategy.get("wan_time_per_exchange_s"), 2),
            count(strategy.get("communication_bytes_per_step")),
            number(strategy.get("step_time_s"), 3),
            percent_number(strategy.get("step_time_increase_fraction"), 3),
            count(strategy.get("staleness_steps")),
            cell(strategy.get("note") or "", "small"),
        ]
        rows.append(Row([cell(c) for c in cells], "rc-chosen" if name == chosen else ""))
    return [
        Heading(text("Cross-site training")),
        paragraph,
        table("regions-strategies", STRATEGY_COLUMNS, rows),
    ]


def egress_paragraph(egress: dict) -> Paragraph:
    replication = egress.get("dataset_replication_one_time_tb")
    return Paragraph(
        text(
            "WAN egress: ",
            strong(f"{amount(egress.get('total_tb_per_month'))} TB/month"),
            ", ",
            strong(f"{usd(egress.get('total_usd_per_month'))}/month"),
            f" over {number(egress.get('run_months'), 2)} months of run",
            replication
            and f"; one-time dataset replication {amount(replication)} TB "
            f"({usd(egress.get('dataset_replication_one_time_usd'))})",
            ".",
        ),
        id="regions-egress-summary",
    )


DATASET_COLUMNS = [
    Column("dataset"),
    Column("size", "TB", numeric=True),
    Column("residency"),
    Column("stored at"),
    Column("plan per site (action, TB moved, USD)"),
]


def _plan(plan: list[dict]):
    parts = []
    for index, step in enumerate(plan):
        moved = f", {amount(step['tb'])} TB, {usd(step.get('usd'))}" if step.get("tb") else ""
        reason = f" ({step['reason']})" if step.get("reason") else ""
        parts += [BR] * bool(index) + [code(step["site"]), f": {step['action']}{moved}{reason}"]
    return cell(text(*parts), "small")


def datasets_table(regions: RegionsResult):
    rows = [
        [
            code(dataset["dataset"]),
            amount(dataset.get("size_tb")),
            "any"
            if dataset.get("residency") == "any"
            else ", ".join(dataset.get("residency") or []),
            ", ".join(dataset.get("stored_at") or []),
            _plan(dataset.get("plan") or []),
        ]
        for dataset in regions.datasets
    ]
    return table("regions-datasets", DATASET_COLUMNS, rows, caption="Datasets and placement")


RESIDENCY_COLUMNS = [
    Column("dataset"),
    Column("region"),
    Column("rule"),
    Column("severity"),
    Column("message"),
]


def residency_table(regions: RegionsResult):
    rows = [
        [
            code(finding["dataset"]),
            code(finding["region"]),
            finding.get("rule"),
            severity(finding["severity"]),
            finding.get("message"),
        ]
        for finding in regions.residency_findings
    ]
    return table(
        "regions-residency",
        RESIDENCY_COLUMNS,
        rows,
        caption="Data residency",
        css="grid rc-table findings",
    )
