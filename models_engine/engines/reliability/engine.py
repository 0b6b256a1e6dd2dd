"""`evaluate_reliability`: interruptions, MTTI, checkpoint interval, goodput, spares, failure
domains, facility availability and storage durability of one design."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from models_engine.engines.fabric.result import FabricResult
from models_engine.engines.facility.result import FacilityResult
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.storage.result import StorageResult

from .checkpoint import (
    daly_first_order_interval,
    daly_interval,
    expected_wall_time,
    goodput,
    goodput_curve,
    young_interval,
)
from .domains import failure_domains, finding, redundancy_findings
from .facility_availability import facility_availability, storage_durability
from .interruptions import (
    NODE_REPAIR_HOURS,
    PLANNED_EVENTS_PER_DAY,
    PLANNED_SOURCE,
    component_rates,
    hot_spares,
    node_rate_per_1000_node_days,
)
from .inventory import build_inventory
from .montecarlo import simulate_wall_time
from .rates import GpuTraits, resolve_rates
from .result import ReliabilityResult
from .run_facts import run_facts

HOURS_PER_DAY = 24.0
# Period over which a serving fleet's interruptions are counted (no run length).
SERVING_PERIOD_DAYS = 30.0
# Smallest mean time to interruption used in the formulas (a design with every rate at zero).
MIN_RATE_PER_H = 1e-12
HISTOGRAM_BINS = 30
# Segments longer than this many MTTIs almost never complete (e^-25 ~ 1e-11).
MAX_SEGMENT_MTTIS = 25.0
# A design's checkpoint interval this much below the optimum's goodput is reported.
GOODPUT_SHORTFALL_FINDING = 0.01


def gpu_traits(spec, catalog) -> GpuTraits:
    """Architecture, memory type and capacity of the design's GPU, which select its default
    failure rates (rates.py); a custom GPU has only its capacity."""
    compute = spec.compute
    if compute.gpu_sku is None:
        custom = compute.custom_gpu
        return GpuTraits(None, None, custom.hbm_gb if custom is not None else None)
    sku = catalog.get("gpus", compute.gpu_sku)
    return GpuTraits(getattr(sku, "architecture", None), sku.hbm_type, sku.hbm_gb)


def evaluate_reliability(
    spec,
    catalog,
    *,
    fabric: FabricResult,
    storage: StorageResult,
    facility: FacilityResult,
    performance: PerformanceResult,
    regions: RegionsResult,
    monte_carlo_runs: int = 0,
    seed: int = 0,
    rate_overrides: Mapping[str, Any] | None = None,
    planned_events_per_day: float | None = None,
    restart_overhead_min: float | None = None,
    node_repair_hours: float | None = None,
) -> ReliabilityResult:
    """Reliability of a design (`DesignSpec`) against the hardware `catalog`.

    Every count and time comes from the engine that owns it: switches, transceivers and NICs
    from `fabric`, racks from `facility`, checkpoint size and times from `storage`, the layout
    from `performance`, the step and failure-free time to train from `regions.training`
    (`run_facts.failure_free_run`). `sources` names
    them. `rate_overrides` replaces catalog failure rates per component class (rates.py)."""
    rates, node_rate = resolve_rates(catalog, gpu_traits(spec, catalog), rate_overrides)
    inventory = build_inventory(spec, catalog, fabric=fabric, facility=facility)
    facts = run_facts(
        spec,
        performance=performance,
        checkpoint=storage.checkpoint,
        regions=regions,
        restart_overhead_min=restart_overhead_min,
    )
    rows = component_rates(inventory, rates, node_rate)
    unplanned_per_day = sum(row.interruptions_per_day for row in rows)
    rate_per_h = max(unplanned_per_day / HOURS_PER_DAY, MIN_RATE_PER_H)
    mtti_h = 1.0 / rate_per_h
    if planned_events_per_day is not None:
        planned_per_day = float(planned_events_per_day)
    else:
        # Serving fleets roll maintenance across replicas without stopping the service.
        planned_per_day = PLANNED_EVENTS_PER_DAY if facts.training else 0.0
    node_rate_1000 = (
        node_rate.failures_per_unit_year / 365.0 * 1000.0
        if node_rate is not None
        else node_rate_per_1000_node_days(rows, inventory.job_nodes)
    )
    fac = facility_availability(spec)

    checkpoint = _checkpoint_block(spec, facts, mtti_h) if facts.training else None
    curve = checkpoint.pop("curve") if checkpoint else []
    run = _run_block(spec, facts, checkpoint, mtti_h, planned_per_day, fac)
    wall_days = run["wall_days"]
    expected = [
        {
            "component": row.key,
            "label": row.label,
            "expected_interruptions": row.interruptions_per_day * wall_days,
        }
        for row in rows
        if row.interruptions_per_day > 0
    ]
    spares = hot_spares(
        node_rate_per_1000=node_rate_1000,
        cluster_nodes=inventory.cluster_nodes,
        gpus_per_node=inventory.gpus_per_node,
        wall_days=wall_days if facts.training else None,
        repair_hours=NODE_REPAIR_HOURS if node_repair_hours is None else node_repair_hours,
    )
    planned_events = planned_per_day * wall_days
    unplanned_events = unplanned_per_day * wall_days
    result = {
        "scope": {
            "workload_kind": spec.workload.kind,
            "job_gpus": inventory.job_gpus,
            "job_nodes": inventory.job_nodes,
            "cluster_gpus": inventory.cluster_gpus,
            "cluster_nodes": inventory.cluster_nodes,
            "racks": inventory.racks,
            "switches": inventory.switches.model_dump(),
            "transceivers": inventory.transceivers,
            "nic_cards": inventory.nic_cards,
            "nodes_per_rack": inventory.nodes_per_rack,
            "job": "the whole synchronous training job"
            if facts.training
            else f"one serving replica of {inventory.job_gpus} GPUs",
        },
        "components": [_component_dict(row, unplanned_per_day) for row in rows],
        "node_failure_rate_per_1000_node_days": node_rate_1000,
        "node_rate_basis": "measured per-node rate" if node_rate else "component model",
        "job_interruption_rate_per_day": unplanned_per_day,
        "mtti_hours": mtti_h,
        "mtti_including_planned_hours": HOURS_PER_DAY / (unplanned_per_day + planned_per_day)
        if unplanned_per_day + planned_per_day > 0
        else None,
        "degradations_per_day": sum(row.degradations_per_day for row in rows),
        "planned_maintenance": {
            "events_per_day": planned_per_day,
            "expected_events": planned_events,
            "source": "design input"
            if planned_events_per_day is not None
            else (
                PLANNED_SOURCE if facts.training else "serving: rolling maintenance (assumption)"
            ),
            "note": "planned stops checkpoint first: each costs a restart, no lost work",
        },
        "expected_interruptions": {
            "period_days": wall_days,
            "period": "the run (wall clock)" if facts.training else "30 days of serving",
            "unplanned": unplanned_events,
            "planned": planned_events,
            "total": unplanned_events + planned_events,
            "by_component": expected,
        },
        "checkpoint": checkpoint,
        "goodput": checkpoint["goodput_at_chosen"] if checkpoint else run["availability"],
        "goodput_vs_interval": curve,
        "time_to_train": run["time_to_train"],
        "hot_spares": spares,
        "hot_spare_nodes": spares["spare_nodes"],
        "failure_domains": failure_domains(spec, inventory),
        "findings": redundancy_findings(spec, inventory, fac)
        + _checkpoint_findings(spec, facts, checkpoint),
        "facility": fac,
        "storage_durability": storage_durability(spec, catalog, storage.durability),
        "monte_carlo": None,
        "breakdown": expected
        + (
            [
                {
                    "component": "planned",
                    "label": "planned maintenance",
                    "expected_interruptions": planned_events,
                }
            ]
            if planned_events
            else []
        ),
        "sources": {**facts.sources, **inventory.sources},
        "assumptions": facts.assumptions + inventory.assumptions,
    }
    if monte_carlo_runs and facts.training:
        result["monte_carlo"] = _monte_carlo(run, monte_carlo_runs, seed)
    return ReliabilityResult.model_validate(result)


def _component_dict(row, total_per_day: float) -> dict:
    return {
        "component": row.key,
        "label": row.label,
        "unit": row.unit,
        "count_in_job": row.interrupting_count,
        "count_not_stopping_job": row.degrading_count,
        "failures_per_unit_year": row.rate.failures_per_unit_year,
        "mtbf_hours": row.rate.mtbf_hours,
        "degrading_per_unit_year": row.rate.degrading_per_unit_year,
        "basis": row.rate.basis,
        "interruptions_per_day": row.interruptions_per_day,
        "degradations_per_day": row.degradations_per_day,
        # Every failure of these parts needs a repair, stopping the job or not.
        "failures_per_year": (row.interruptions_per_day + row.degradations_per_day) * 365.0,
        "share_of_interruptions": row.interruptions_per_day / total_per_day
        if total_per_day > 0
        else 0.0,
        "source": row.rate.source,
        "catalog_id": row.rate.catalog_id,
        "note": row.rate.note,
    }


def _checkpoint_block(spec, facts, mtti_h: float) -> dict:
    delta_h = facts.checkpoint_blocking_s / 3600.0
    write_h = facts.checkpoint_write_s / 3600.0
    restart_h = (facts.restart_overhead_s + facts.checkpoint_read_s) / 3600.0
    policy = spec.storage.checkpoint
    # Async: the newest checkpoint is not durable until written, so a failure in that window
    # rolls back one more interval: about `write` more lost work per failure, and the next
    # checkpoint cannot start before the previous one is written.
    lost_restart_h = restart_h + (write_h if policy.async_write else 0.0)
    # No more than one checkpoint per optimizer step, and none more often than the storage
    # sustains: a write must finish before the next starts, and writes may occupy the tier
    # only its duty cycle (storage engine's min_interval_s).
    floor_h = max(facts.checkpoint_min_interval_s / 3600.0, facts.step_time_s / 3600.0)
    floor_source = (
        "storage write time / duty cycle"
        if facts.checkpoint_min_interval_s >= facts.step_time_s
        else "one optimizer step"
    )
    work_h = facts.failure_free_days * HOURS_PER_DAY
    young = young_interval(delta_h, mtti_h)
    daly = daly_interval(delta_h, mtti_h)
    optimum = min(max(daly, floor_h), work_h)
    if isinstance(policy.interval_min, str):
        chosen, chosen_source = optimum, "auto: Daly optimum"
    else:
        chosen, chosen_source = min(max(policy.interval_min / 60.0, floor_h), work_h), "design"
    curve = goodput_curve(optimum, delta_h, mtti_h, lost_restart_h, floor=floor_h)
    best = curve["best_index"]
    points = [
        {
            "interval_min": float(tau) * 60.0,
            "goodput": float(value),
            "is_optimum": index == best,
        }
        for index, (tau, value) in enumerate(zip(curve["intervals"], curve["goodput"], strict=True))
    ]

    def at(tau_h: float) -> float:
        return float(goodput(max(tau_h, floor_h), delta_h, mtti_h, lost_restart_h))

    per_day = HOURS_PER_DAY / chosen
    # The durable tier is written at the chosen interval, or less often when restarts read
    # from peer memory and the durable tier cannot keep up.
    durable_every_h = max(chosen, facts.checkpoint_durable_min_interval_s / 3600.0)
    horizon_days = spec.economics.horizon_years * 365.0
    return {
        "size_bytes": facts.checkpoint_bytes,
        "checkpoints_per_day": per_day,
        "durable_every_min": durable_every_h * 60.0,
        "written_tb_per_day": facts.checkpoint_bytes / 1e12 * HOURS_PER_DAY / durable_every_h,
        "written_pb_over_horizon": facts.checkpoint_bytes
        / 1e15
        * HOURS_PER_DAY
        / durable_every_h
        * horizon_days,
        "tier": facts.checkpoint_tier,
        "durable_against_node_loss": facts.checkpoint_durable,
        "async_write": policy.async_write,
        "write_time_s": facts.checkpoint_write_s,
        "blocking_time_s": facts.checkpoint_blocking_s,
        "read_time_s": facts.checkpoint_read_s,
        "restart_time_min": restart_h * 60.0,
        "lost_work_per_failure_extra_min": (lost_restart_h - restart_h) * 60.0,
        "young_interval_min": young * 60.0,
        "daly_interval_min": daly * 60.0,
        "daly_first_order_interval_min": daly_first_order_interval(delta_h, mtti_h, restart_h)
        * 60.0,
        "min_interval_min": floor_h * 60.0,
        "min_interval_source": floor_source,
        "optimum_interval_min": optimum * 60.0,
        "chosen_interval_min": chosen * 60.0,
        "chosen_interval_source": chosen_source,
        "goodput_at_chosen": at(chosen),
        "goodput_at_young": at(young),
        "goodput_at_daly": at(daly),
        "goodput_optimum": {
            "interval_min": points[best]["interval_min"],
            "goodput": points[best]["goodput"],
            "grid_step_min": curve["step"] * 60.0,
        },
        # Kokolis et al. first-order ETTR estimator (reliability.md), for comparison.
        "ettr_first_order": max(
            0.0, (1.0 - (restart_h + chosen / 2.0) / mtti_h) / (1.0 + delta_h / chosen)
        ),
        "formulas": {
            "young": "sqrt(2 delta M)",
            "daly": "sqrt(2 delta M)[1 + (delta/2M)^0.5/3 + (delta/2M)/9] - delta (delta < 2M)",
            "goodput": "tau / (M e^(R/M) (e^((tau+delta)/M) - 1))",
        },
        "_model": {
            "tau_h": chosen,
            "delta_h": delta_h,
            "restart_h": lost_restart_h,
            "restart_only_h": restart_h,
        },
        "curve": points,
    }


def _run_block(spec, facts, checkpoint, mtti_h, planned_per_day, fac) -> dict:
    gpu_sites = sum(1 for site in spec.regions.sites if site.gpu_share > 0)
    coupled = spec.regions.cross_region_strategy in ("none", "synchronous")
    availability = fac["availability"] ** (gpu_sites if coupled else 1)
    if checkpoint is None:
        restart_h = facts.restart_overhead_s / 3600.0
        replica_availability = mtti_h / (mtti_h + restart_h) * availability
        return {
            "wall_days": SERVING_PERIOD_DAYS,
            "availability": replica_availability,
            "time_to_train": None,
        }
    model = checkpoint.pop("_model")
    work_h = facts.failure_free_days * HOURS_PER_DAY
    tau, delta, restart = model["tau_h"], model["delta_h"], model["restart_h"]
    failures_h = expected_wall_time(work_h, tau, delta, mtti_h, restart)
    checkpoints = math.floor(work_h / tau)
    overhead_h = checkpoints * delta
    # Planned stops: checkpoint, stop, restart (no lost work).
    planned_h = planned_per_day * failures_h / HOURS_PER_DAY * (model["restart_only_h"] + delta)
    subtotal_h = failures_h + planned_h
    facility_h = subtotal_h * (1.0 - availability) / availability
    wall_h = subtotal_h + facility_h
    return {
        "wall_days": wall_h / HOURS_PER_DAY,
        "availability": availability,
        "work_h": work_h,
        "tau_h": tau,
        "delta_h": delta,
        "restart_h": restart,
        "mtti_h": mtti_h,
        "extra_h": planned_h + facility_h,
        "failures_h": failures_h,
        "time_to_train": {
            "failure_free_days": facts.failure_free_days,
            "failure_free_source": facts.sources["failure_free_days"],
            "with_failures_days": wall_h / HOURS_PER_DAY,
            "added_days": (wall_h - work_h) / HOURS_PER_DAY,
            "effective_training_time_ratio": work_h / wall_h,
            "added_breakdown_days": {
                "checkpoint_writes": overhead_h / HOURS_PER_DAY,
                "lost_work_and_restarts": (failures_h - work_h - overhead_h) / HOURS_PER_DAY,
                "planned_maintenance": planned_h / HOURS_PER_DAY,
                "facility_downtime": facility_h / HOURS_PER_DAY,
            },
            "facility_availability_applied": availability,
        },
    }


def _monte_carlo(run: dict, runs: int, seed: int) -> dict:
    block_h = run["restart_h"] + run["tau_h"] + run["delta_h"]
    if block_h / run["mtti_h"] > MAX_SEGMENT_MTTIS:
        return {
            "runs": 0,
            "seed": int(seed),
            "skipped": "a checkpoint interval of many MTTIs almost never completes: the run "
            "does not finish, nothing to sample",
        }
    times, failures = simulate_wall_time(
        work=run["work_h"],
        tau=run["tau_h"],
        delta=run["delta_h"],
        mtti=run["mtti_h"],
        restart=run["restart_h"],
        runs=int(runs),
        seed=int(seed),
    )
    # Planned stops and facility downtime scale with the run's own length.
    scale = (run["failures_h"] + run["extra_h"]) / run["failures_h"]
    days = times * scale / HOURS_PER_DAY
    closed = run["wall_days"]
    counts, edges = np.histogram(days, bins=HISTOGRAM_BINS)
    return {
        "runs": int(runs),
        "seed": int(seed),
        "mean_days": float(days.mean()),
        "std_days": float(days.std()),
        "p10_days": float(np.percentile(days, 10)),
        "p50_days": float(np.percentile(days, 50)),
        "p90_days": float(np.percentile(days, 90)),
        "closed_form_days": closed,
        "relative_difference": float(days.mean() / closed - 1.0),
        "interruptions_mean": float(failures.mean()),
        "interruptions_p90": float(np.percentile(failures, 90)),
        "histogram": [
            {"from_days": float(lo), "to_days": float(hi), "runs": int(n)}
            for lo, hi, n in zip(edges[:-1], edges[1:], counts, strict=True)
        ],
    }


def _checkpoint_findings(spec, facts, checkpoint: dict | None) -> list[dict]:
    out = []
    if checkpoint is not None:
        shortfall = checkpoint["goodput_optimum"]["goodput"] - checkpoint["goodput_at_chosen"]
        if shortfall > GOODPUT_SHORTFALL_FINDING:
            out.append(
                finding(
                    "checkpoint-interval-off-optimum",
                    "high" if checkpoint["goodput_at_chosen"] < 0.5 else "medium",
                    "node",
                    f"checkpointing every {checkpoint['chosen_interval_min']:.1f} min gives "
                    f"goodput {checkpoint['goodput_at_chosen']:.3f}; the optimum "
                    f"({checkpoint['optimum_interval_min']:.1f} min, Daly) gives "
                    f"{checkpoint['goodput_optimum']['goodput']:.3f}",
                )
            )
    if facts.training and not facts.checkpoint_durable:
        out.append(
            finding(
                "checkpoint-not-durable",
                "high",
                "node",
                "checkpoints go only to node-local NVMe: a node failure loses its shard, so "
                "restarts need a copy on a shared tier or on peer nodes",
            )
        )
    policy = spec.storage.checkpoint
    if facts.training and policy.async_write and policy.retention_count < 2:
        out.append(
            finding(
                "single-checkpoint-retained",
                "medium",
                "node",
                "async writes with retention_count 1: a failure while the newest checkpoint is "
                "written leaves no complete one",
            )
        )
    return out
