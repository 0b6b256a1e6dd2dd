"""Job interruption rate: the sum over the components the job depends on of count x rate
(a synchronous job is a series system), planned maintenance kept apart, and the hot spares the
repair pipeline needs."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .inventory import Inventory
from .rates import CLASSES, DAYS_PER_YEAR, NODE_RATE_REPLACES, Rate

# Planned interruptions (firmware / driver rollouts, training changes): 47 in the 54-day
# Llama 3 405B snapshot on 16,384 H100s (Dubey et al. 2024, "The Llama 3 Herd of Models",
# section 3.3.4; via glennklockwood.com component-reliability). Operations-driven, so taken
# per job, not per component.
PLANNED_EVENTS_PER_DAY = 47.0 / 54.0
PLANNED_SOURCE = "Llama 3 405B training: 47 planned interruptions in 54 days (Dubey et al. 2024)"
# Time a failed node spends out of the pool (triage, swap, burn-in). Assumption.
NODE_REPAIR_HOURS = 24.0
# Spare pool sized so the job finds a healthy node with this probability.
SPARE_CONFIDENCE = 0.999


@dataclass
class ComponentRate:
    key: str
    label: str
    unit: str
    node_internal: bool
    interrupting_count: float
    degrading_count: float
    rate: Rate
    interruptions_per_day: float
    degradations_per_day: float


def component_rates(
    inventory: Inventory, rates: dict[str, Rate], node_rate: Rate | None
) -> list[ComponentRate]:
    rows = []
    for cls in CLASSES:
        count = inventory.counts[cls.key]
        rate = rates[cls.key]
        per_day = rate.failures_per_unit_year / DAYS_PER_YEAR
        # Failures of redundant / rerouted parts, and the errors of job-critical parts that
        # are absorbed (HBM row remap), need repair or attention but do not stop the job.
        absorbed_per_day = rate.degrading_per_unit_year / DAYS_PER_YEAR
        rows.append(
            ComponentRate(
                key=cls.key,
                label=cls.label,
                unit=cls.unit,
                node_internal=cls.node_internal,
                interrupting_count=count.interrupting,
                degrading_count=count.degrading,
                rate=rate,
                interruptions_per_day=count.interrupting * per_day,
                degradations_per_day=count.degrading * per_day
                + count.interrupting * absorbed_per_day,
            )
        )
    if node_rate is not None:
        _apply_node_rate(rows, inventory, node_rate)
    return rows


def _apply_node_rate(rows: list[ComponentRate], inventory: Inventory, node_rate: Rate) -> None:
    """Replace the node-internal and software total by a measured per-node rate, keeping the
    component model's shares for the breakdown. A fleet's measured node rate counts every
    interruption it attributes to a node, software faults included, so software is replaced
    too rather than added on top."""
    internal = [row for row in rows if row.key in NODE_RATE_REPLACES]
    modelled = sum(row.interruptions_per_day for row in internal)
    target = node_rate.failures_per_unit_year / DAYS_PER_YEAR * inventory.job_nodes
    for row in internal:
        share = row.interruptions_per_day / modelled if modelled > 0 else 1.0 / len(internal)
        row.interruptions_per_day = target * share
        row.rate = Rate(
            row.key,
            row.rate.failures_per_unit_year * (target / modelled if modelled > 0 else 0.0),
            f"{node_rate.source} (measured per-node rate, spread by the component model)",
            node_rate.catalog_id,
            row.rate.note,
        )


def node_rate_per_1000_node_days(rows: list[ComponentRate], job_nodes: int) -> float:
    internal = sum(row.interruptions_per_day for row in rows if row.node_internal)
    return internal / job_nodes * 1000.0


def poisson_quantile(mean: float, confidence: float) -> int:
    """Smallest k with P(X <= k) >= confidence for X ~ Poisson(mean)."""
    if mean <= 0:
        return 0
    if mean > 400:  # normal approximation; the exact sum underflows e^-mean
        z = 3.090232306167813 if confidence >= 0.999 else 2.326347874040841
        return math.ceil(mean + z * math.sqrt(mean))
    term = math.exp(-mean)
    total, k = term, 0
    while total < confidence:
        k += 1
        term *= mean / k
        total += term
    return k


def hot_spares(
    *,
    node_rate_per_1000: float,
    cluster_nodes: int,
    gpus_per_node: int,
    wall_days: float | None,
    repair_hours: float,
) -> dict:
    failures_per_day = node_rate_per_1000 / 1000.0 * cluster_nodes
    in_repair = failures_per_day * repair_hours / 24.0
    spares = poisson_quantile(in_repair, SPARE_CONFIDENCE)
    return {
        "node_failures_per_day": failures_per_day,
        "repair_hours": repair_hours,
        "mean_nodes_in_repair": in_repair,
        "confidence": SPARE_CONFIDENCE,
        "spare_nodes": spares,
        "spare_gpus": spares * gpus_per_node,
        "spare_fraction": spares / cluster_nodes,
        "node_replacements_over_run": failures_per_day * wall_days if wall_days else None,
        "method": "Poisson quantile of nodes in repair at once (failure rate x repair time); "
        "repair time is an assumption. Delta (NCSA) recommends ~5% spare capacity for 99.9% "
        "availability at 2.2 h recovery (reliability.md)",
    }
