"""`evaluate_regions`: per-site placement, WAN links, cross-site training strategies and what
the chosen one adds to the step (`training`), egress volume and cost, data-residency findings.

Reads the performance engine's single-site step, layout and parameters and the storage
engine's checkpoint bytes from their typed results; derives none of them."""

from __future__ import annotations

from models_engine.engines.performance.result import SECONDS_PER_DAY, PerformanceResult
from models_engine.engines.storage.result import StorageResult
from models_engine.sites import site_slices

from .jurisdictions import site_location
from .residency import GB, TB, placement, stored_findings
from .result import RegionsResult
from .site_fill import site_figure_dates, site_figure_sources
from .strategies import SYNC_VIABLE_SLOWDOWN, recommend
from .training import CrossSite, cross_site, gpu_site_ids, training_with_wan
from .wan import ring, widest_path

DAYS_PER_MONTH = 30.0
# Off-site disaster-recovery copies of the newest checkpoint per day when the design has more
# than one site (engine policy; the checkpoint itself is the storage engine's).
CHECKPOINT_OFFSITE_COPIES_PER_DAY = 1.0


def evaluate_regions(
    spec,
    catalog,
    *,
    performance: PerformanceResult,
    storage: StorageResult,
    checkpoint_offsite_copies_per_day: float | None = None,
) -> RegionsResult:
    """Regions view of a design (`DesignSpec`) on the performance engine's single-site step
    and the storage engine's checkpoint."""
    regions = spec.regions
    locations = {site.id: site_location(site, catalog) for site in regions.sites}
    findings: list[dict] = []

    plan = cross_site(spec, performance)
    training = training_with_wan(spec, performance, plan)
    cross = _cross_region(spec, plan, findings)
    if performance.training and plan is None:
        _no_wan_path(spec, findings)
    days = training.time_to_train_failure_free_days if training else None
    run_months = days / DAYS_PER_MONTH if days else None
    epochs = _epochs(spec) if performance.training else 0.0
    plans, read_findings = placement(regions, locations, epochs=epochs, run_months=run_months)
    residency = stored_findings(regions, locations) + read_findings
    if cross and residency and not cross["synchronous_viable"]:
        cross["recommendation"] = recommend(
            cross["strategies"],
            residency_bound=True,
            exchange=plan.exchange,
            model_bytes=plan.model_bytes,
            compute_s=plan.site_step_time_s,
        )

    checkpoint_bytes = storage.checkpoint.size_bytes if storage.checkpoint.applies else 0.0
    egress = _egress(
        spec,
        performance.training,
        checkpoint_bytes,
        cross,
        plan.hops if cross else [],
        plans,
        run_months,
        checkpoint_offsite_copies_per_day,
    )
    site_gpus = {site.site_id: site.gpus for site in site_slices(spec)}
    return RegionsResult(
        sites=[
            _site_dict(s, locations[s.id], site_gpus.get(s.id, 0), catalog) for s in regions.sites
        ],
        wan_links=_links(regions.wan_links, cross, egress),
        cross_region=cross,
        training=training,
        egress=egress,
        datasets=plans,
        residency_findings=residency,
        findings=findings,
        breakdown=[
            {"kind": item["kind"], "tb_per_month": item["tb"], "usd_per_month": item["usd"]}
            for item in egress["per_month"]
        ],
        sources={
            "site_step_time_s": "performance",
            "parameters": "performance",
            "layout": "performance",
            "checkpoint_bytes": "storage",
        },
        assumptions=[],
    )


def _site_dict(site, location, gpus: int, catalog) -> dict:
    """`gpus`: the site's GPUs in whole purchase units (`models_engine.sites`); the price,
    carbon, water and climate figures are the site's resolved ones (`site_fill`)."""
    region = catalog.regions.get(site.catalog_region_id) if site.catalog_region_id else None
    return {
        "id": site.id,
        "name": site.name,
        "gpu_share": site.gpu_share,
        "gpus": gpus,
        "power_price_usd_per_kwh": site.power_price_usd_per_kwh,
        "carbon_gco2e_per_kwh": site.carbon_gco2e_per_kwh,
        "carbon_marginal_gco2e_per_kwh": site.carbon_marginal_gco2e_per_kwh,
        "climate": site.climate,
        "water_stress": site.water_stress,
        "renewable_contract_share": site.renewable_contract_share,
        "renewable_contract_instrument": site.renewable_contract_instrument,
        "figure_sources": site_figure_sources(site, region),
        "figure_dates": site_figure_dates(site, region),
        "jurisdiction": site.jurisdiction,
        "country": location.country,
        "legal_codes": sorted(location.codes()),
        "catalog_region_id": site.catalog_region_id,
    }


def _epochs(spec) -> float:
    workload, storage = spec.workload, spec.storage
    if storage.bytes_per_sample:
        read = workload.tokens_to_train / workload.sequence_length * storage.bytes_per_sample
    else:
        read = workload.tokens_to_train * storage.bytes_per_token
    return read / (storage.dataset_size_tb * TB)


def _no_wan_path(spec, findings: list[dict]) -> None:
    ids = gpu_site_ids(spec)
    if len(ids) >= 2 and ring(spec.regions.wan_links, ids) is None:
        findings.append(
            {
                "id": "no-wan-path",
                "severity": "high",
                "message": f"the GPU sites {', '.join(ids)} are not all connected by WAN links: "
                "no cross-site training is possible",
            }
        )


def _cross_region(spec, plan: CrossSite | None, findings: list[dict]) -> dict | None:
    """The cross-region block (None without two connected GPU sites)."""
    if plan is None:
        return None
    strategies = plan.strategies
    chosen = spec.regions.cross_region_strategy
    sync = plan.option("synchronous")
    sync_viable = sync["step_time_increase_fraction"] <= SYNC_VIABLE_SLOWDOWN
    if chosen == "synchronous" and not sync_viable:
        findings.append(
            {
                "id": "synchronous-wan-not-viable",
                "severity": "high",
                "message": f"synchronous training over the WAN adds "
                f"{sync['step_time_increase_fraction']:.0%} to every step; use hierarchical "
                "or async averaging",
            }
        )
    link = plan.exchange
    return {
        "gpu_sites": plan.site_ids,
        "strategy_chosen": chosen,
        "chosen": plan.option(chosen),
        "site_step_time_s": plan.site_step_time_s,
        "gradient_bytes_per_step": plan.gradient_bytes,
        "gradient_bytes_per_dp_rank": plan.gradient_bytes_per_rank,
        "model_exchange_bytes": plan.model_bytes,
        "bottleneck_bandwidth_gbps": link.bandwidth_bytes_per_s * 8.0 / 1e9,
        "ring_rtt_ms": link.one_way_latency_s * 2000.0,
        "ring": [
            {
                "sites": list(hop.sites),
                "bandwidth_gbps": hop.bandwidth_gbps,
                "rtt_ms": hop.rtt_ms,
                "links": list(hop.links),
            }
            for hop in plan.hops
        ],
        "synchronous_viable": sync_viable,
        "synchronous_wan_allreduce_s": sync["wan_time_per_exchange_s"],
        "strategies": strategies,
        "recommendation": recommend(
            strategies,
            residency_bound=False,
            exchange=link,
            model_bytes=plan.model_bytes,
            compute_s=plan.site_step_time_s,
        ),
    }


def _gradient_egress(cross, hops) -> tuple[float, float, dict[int, float]]:
    """(bytes per month, USD per month, bytes per month per link) of the chosen strategy."""
    if not cross or not cross["chosen"] or not hops:
        return 0.0, 0.0, {}
    option = cross["chosen"]
    steps = DAYS_PER_MONTH * SECONDS_PER_DAY / option["step_time_s"]
    total = option["communication_bytes_per_step"] * steps
    per_hop = total / len(hops)
    usd, per_link = 0.0, {}
    for hop in hops:
        usd += per_hop / GB * hop.egress_usd_per_gb
        for index in hop.links:
            per_link[index] = per_link.get(index, 0.0) + per_hop
    return total, usd, per_link


def _checkpoint_egress(spec, training: bool, checkpoint_bytes, copies_per_day) -> dict | None:
    sites = spec.regions.sites
    if copies_per_day is None:
        copies_per_day = CHECKPOINT_OFFSITE_COPIES_PER_DAY if len(sites) > 1 else 0.0
    if not training or copies_per_day <= 0 or len(sites) < 2:
        return None
    home = max(sites, key=lambda site: site.gpu_share)
    paths = [widest_path(spec.regions.wan_links, home.id, s.id) for s in sites if s is not home]
    paths = [path for path in paths if path is not None]
    if not paths:
        return None
    path = min(paths, key=lambda p: (p.egress_usd_per_gb, -p.bandwidth_gbps))
    bytes_month = checkpoint_bytes * copies_per_day * DAYS_PER_MONTH
    return {
        "kind": "checkpoints",
        "tb": bytes_month / TB,
        "usd": bytes_month / GB * path.egress_usd_per_gb,
        "detail": f"{copies_per_day:g} off-site copy/day of a {checkpoint_bytes / TB:.2f} "
        f"TB checkpoint, {path.sites[0]} -> {path.sites[-1]}",
    }


def _egress(
    spec, training: bool, checkpoint_bytes, cross, hops, plans, run_months, copies_per_day
) -> dict:
    grad_bytes, grad_usd, per_link = _gradient_egress(cross, hops)
    per_month = [
        {
            "kind": "gradients",
            "tb": grad_bytes / TB,
            "usd": grad_usd,
            "detail": f"{cross['strategy_chosen']} exchange over {len(cross['gpu_sites'])} sites"
            if cross
            else "single GPU site: no cross-site training traffic",
        }
    ]
    checkpoints = _checkpoint_egress(spec, training, checkpoint_bytes, copies_per_day)
    if checkpoints:
        per_month.append(checkpoints)
    stream_tb = stream_usd = 0.0
    one_time = []
    for plan in plans:
        for row in plan["plan"]:
            if row["action"] == "replicate":
                one_time.append({"dataset": plan["dataset"], "to_site": row["site"], **row})
            elif row["action"] == "stream" and run_months:
                stream_tb += row["tb"] / run_months
                stream_usd += row["usd"] / run_months
    per_month.append(
        {
            "kind": "dataset_streaming",
            "tb": stream_tb,
            "usd": stream_usd,
            "detail": "remote reads where a replica is not justified",
        }
    )
    replication_tb = sum(item["tb"] for item in one_time)
    replication_usd = sum(item["usd"] for item in one_time)
    if run_months and replication_tb:
        per_month.append(
            {
                "kind": "dataset_replication",
                "tb": replication_tb / max(1.0, run_months),
                "usd": replication_usd / max(1.0, run_months),
                "detail": "one-time replicas spread over the run (at least one month)",
            }
        )
    return {
        "per_month": per_month,
        "total_tb_per_month": sum(item["tb"] for item in per_month),
        "total_usd_per_month": sum(item["usd"] for item in per_month),
        "dataset_replication_one_time": one_time,
        "dataset_replication_one_time_tb": replication_tb,
        "dataset_replication_one_time_usd": replication_usd,
        "run_months": run_months,
        "gradient_tb_per_month_by_link": [
            {"link_index": index, "tb": b / TB} for index, b in sorted(per_link.items())
        ],
    }


def _links(links, cross, egress) -> list[dict]:
    used = {index for hop in (cross or {}).get("ring", []) for index in hop["links"]}
    monthly = {item["link_index"]: item["tb"] for item in egress["gradient_tb_per_month_by_link"]}
    return [
        {
            "index": index,
            "from_site": link.from_site,
            "to_site": link.to_site,
            "bandwidth_gbps": link.bandwidth_gbps,
            "rtt_ms": link.rtt_ms,
            "egress_usd_per_gb": link.egress_usd_per_gb,
            "carries_training_traffic": index in used,
            "gradient_tb_per_month": monthly.get(index, 0.0),
            "average_utilisation": monthly.get(index, 0.0)
            * TB
            * 8
            / (DAYS_PER_MONTH * SECONDS_PER_DAY)
            / (link.bandwidth_gbps * 1e9),
        }
        for index, link in enumerate(links)
    ]
