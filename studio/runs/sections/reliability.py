"""Reliability section: interruptions, goodput, time added to the run, spares, checkpoint
interval, availability and durability; the days each cause adds, the blast radius of each
failure domain, findings and assumptions."""

from models_engine import ReliabilityResult
from studio.runs.sections.blocks import (
    Block,
    Card,
    Cards,
    Column,
    Heading,
    Paragraph,
    cell,
    code,
    findings_list,
    table,
    text,
)
from studio.runs.sections.format import DASH, amount, count, number, percent, percent_number
from studio.runs.selectors import TypedResults


def blocks(results: TypedResults, run=None) -> list[Block]:
    reliability = results.reliability
    if reliability is None:
        return []
    built: list[Block] = [Cards(key_figures(reliability), id="reliability-key-figures")]
    time_to_train = reliability.time_to_train
    if time_to_train and time_to_train.added_breakdown_days:
        added = time_to_train.added_breakdown_days
        rows = [[code(cause), number(days, 3)] for cause, days in added.items()]
        columns = [Column("added to the run by"), Column("time", "days", numeric=True)]
        built.append(
            table(
                "reliability-added-days",
                columns,
                rows,
                css="grid rc-table compact-table",
                scroll=False,
            )
        )
    built += [Heading(text("Failure rates by component")), components_table(reliability)]
    built += [Heading(text("Blast radius by failure domain")), blast_radius_table(reliability)]
    built += findings_list(reliability.findings, "reliability-findings", where="domain")
    if reliability.assumptions:
        assumptions = "Assumptions: " + " · ".join(reliability.assumptions)
        built.append(Paragraph(text(assumptions), css="muted small"))
    return built


def key_figures(reliability: ReliabilityResult) -> list[Card]:
    interruptions, spares = reliability.expected_interruptions, reliability.hot_spares
    checkpoint, facility = reliability.checkpoint, reliability.facility
    time_to_train = reliability.time_to_train
    cards = [
        Card(
            "MTTI",
            amount(reliability.mtti_hours),
            "h between job interruptions",
            f"({amount(reliability.mtti_including_planned_hours)} h counting planned stops) · "
            f"{count(reliability.scope.job_gpus)} GPUs in the job",
        ),
        Card(
            "Interruptions",
            number(interruptions.get("total"), 1),
            f"over {interruptions.get('period')}",
            f"({number(interruptions.get('period_days'), 1)} days): "
            f"{number(interruptions.get('unplanned'), 1)} unplanned, "
            f"{number(interruptions.get('planned'), 1)} planned",
        ),
        Card(
            "Goodput",
            percent_number(reliability.goodput, 2),
            "% of wall-clock time doing useful work",
            f"(checkpoint every {number(checkpoint.get('chosen_interval_min'), 2)} min, "
            f"{checkpoint.get('chosen_interval_source')})"
            if checkpoint
            else "",
        ),
    ]
    if time_to_train:
        cards.append(
            Card(
                "Added time to train",
                number(time_to_train.added_days, 2),
                "days",
                f"on {number(time_to_train.failure_free_days, 1)} failure-free "
                f"({time_to_train.failure_free_source}) → "
                f"{number(time_to_train.with_failures_days, 1)} days",
            )
        )
    cards.append(
        Card(
            "Hot spares",
            count(spares.get("spare_nodes")),
            "nodes",
            f"({count(spares.get('spare_gpus'))} GPUs) for "
            f"{percent(spares.get('confidence'), 1)} confidence, "
            f"{number(spares.get('repair_hours'), 1, trim=True)} h repairs",
        )
    )
    if checkpoint:
        cards.append(
            Card(
                "Optimal checkpoint interval",
                number(checkpoint.get("optimum_interval_min"), 2),
                "min",
                f"(Young {number(checkpoint.get('young_interval_min'), 2)}, "
                f"Daly {number(checkpoint.get('daly_interval_min'), 2)}) · "
                f"restart {number(checkpoint.get('restart_time_min'), 1)} min",
            )
        )
    cards.append(
        Card(
            "Site availability",
            percent_number(facility.get("availability"), 3),
            "%",
            f"{facility.get('power_redundancy')} power, {facility.get('cooling_redundancy')} "
            f"cooling, tier {facility.get('uptime_tier')}: "
            f"{number(facility.get('downtime_h_per_year'), 1)} h/year down",
        )
    )
    durability = reliability.storage_durability
    if durability:
        cards.append(
            Card(
                "Storage durability",
                number(durability.get("nines"), 1),
                "nines",
                f"per protection group ({durability.get('scheme')})",
            )
        )
    monte_carlo = reliability.monte_carlo or {}
    if monte_carlo.get("runs"):
        cards.append(
            Card(
                "Monte Carlo P90",
                number(monte_carlo.get("p90_days"), 2),
                "days to train",
                f"(P50 {number(monte_carlo.get('p50_days'), 2)}, "
                f"{count(monte_carlo['runs'])} runs)",
            )
        )
    return cards


COMPONENT_COLUMNS = [
    Column("component"),
    Column("in the job", "count", numeric=True),
    Column("MTBF per unit", "h", numeric=True),
    Column("interruptions", "per day", numeric=True),
    Column("degradations", "per day", numeric=True),
    Column("basis"),
    Column("source"),
]


def components_table(reliability: ReliabilityResult):
    """Each component class: how many the job depends on, its rate and how the rate relates to
    the design's GPU generation (measured, derived, carried, platform, textbook)."""
    rows = [
        [
            text(component["label"]),
            count(component.get("count_in_job")),
            count(component.get("mtbf_hours")),
            number(component.get("interruptions_per_day"), 3),
            number(component.get("degradations_per_day"), 3),
            code(component.get("basis") or DASH),
            cell(component.get("source") or "", "small"),
        ]
        for component in reliability.components
    ]
    return table("reliability-components", COMPONENT_COLUMNS, rows)


BLAST_COLUMNS = [
    Column("failure domain"),
    Column("GPUs lost", "GPUs", numeric=True),
    Column("jobs stopped", "jobs", numeric=True),
    Column("GPUs idled", "GPUs", numeric=True),
    Column("degradation"),
    Column("note"),
]


def blast_radius_table(reliability: ReliabilityResult):
    rows = [
        [
            code(domain["domain"]),
            count(domain.get("gpus_lost")),
            count(domain.get("jobs_stopped")),
            count(domain.get("gpus_idled")),
            domain.get("degradation") or DASH,
            cell(domain.get("note") or "", "small"),
        ]
        for domain in reliability.failure_domains
    ]
    return table("reliability-blast-radius", BLAST_COLUMNS, rows)
