"""Run every engine on a design, in dependency order, and return plain JSON-ready results.

Each engine step reads the spec, the catalog and the results of the steps before it; the
order below is the dependency order (fabric and power feed performance, reliability and cost;
security reads facts from all of them)."""

from collections.abc import Callable
from dataclasses import dataclass, field

from models_engine.catalog import Catalog, load_catalog
from models_engine.engines.cost import evaluate_cost
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.facility import evaluate_facility
from models_engine.engines.performance import evaluate_performance
from models_engine.engines.regions import evaluate_regions
from models_engine.engines.reliability import evaluate_reliability
from models_engine.engines.security import evaluate_security
from models_engine.engines.storage import evaluate_storage
from models_engine.engines.sweep import scaling_curve
from models_engine.hardware import GpuFigures, resolve_gpu
from models_engine.price_overrides import apply_catalog_prices
from models_engine.spec import (
    SPEC_VERSION,
    DesignSpec,
    SpecValidationError,
    parse_design,
    reference_errors,
    spec_hash,
)

ProgressCallback = Callable[[str, list[str]], None]
MONTE_CARLO_RUNS = 10_000


@dataclass
class EvaluationContext:
    spec: DesignSpec
    catalog: Catalog
    gpu: GpuFigures
    accepted_risks: list[dict] = field(default_factory=list)
    results: dict = field(default_factory=dict)


def _fabric(ctx: EvaluationContext) -> dict:
    return evaluate_fabric(ctx.spec, ctx.catalog)


def _performance(ctx: EvaluationContext) -> dict:
    return evaluate_performance(ctx.spec, ctx.gpu, ctx.catalog)


def _storage(ctx: EvaluationContext) -> dict:
    return evaluate_storage(
        ctx.spec, ctx.catalog, tokens_per_s=ctx.results["performance"].get("tokens_per_s")
    )


def _facility(ctx: EvaluationContext) -> dict:
    return evaluate_facility(
        ctx.spec, ctx.catalog, fabric=ctx.results["fabric"], storage=ctx.results["storage"]
    )


def _reliability(ctx: EvaluationContext) -> dict:
    r = ctx.results
    return evaluate_reliability(
        ctx.spec,
        ctx.catalog,
        fabric=r["fabric"],
        storage=r["storage"],
        facility=r["facility"],
        performance=r["performance"],
        # A seeded Monte Carlo of time to train: the spread, not only the mean (~3 ms).
        monte_carlo_runs=MONTE_CARLO_RUNS,
        seed=0,
    )


def _regions(ctx: EvaluationContext) -> dict:
    r = ctx.results
    return evaluate_regions(
        ctx.spec, ctx.catalog, performance=r["performance"], storage=r["storage"]
    )


def _cost(ctx: EvaluationContext) -> dict:
    r = ctx.results
    return evaluate_cost(
        ctx.spec,
        ctx.catalog,
        fabric=r.get("fabric"),
        facility=r.get("facility"),
        storage=r.get("storage"),
        performance=r.get("performance"),
        reliability=r.get("reliability"),
        regions=r.get("regions"),
    )


def _scaling(ctx: EvaluationContext) -> dict:
    return scaling_curve(ctx.spec, ctx.gpu, ctx.catalog)


def _security(ctx: EvaluationContext) -> dict:
    return evaluate_security(
        ctx.spec, facts=security_facts(ctx.results), accepted_risks=ctx.accepted_risks
    )


def security_facts(results: dict) -> dict:
    """Facts other engines established, in the security engine's vocabulary; facts not
    given here are derived from the spec by the security engine itself."""
    facts = {}
    fabric = results.get("fabric")
    if fabric is not None:
        # What the fabric engine actually built: a converged network rides the compute fabric.
        frontend = fabric.get("frontend_network", {}).get("mode")
        storage = fabric.get("storage_network", {}).get("mode")
        if frontend:
            facts["fabric.frontend_on_compute_fabric"] = frontend == "converged"
        if storage:
            facts["fabric.storage_on_compute_fabric"] = storage == "converged"
    regions = results.get("regions")
    if regions is not None:
        facts["regions.residency_violations"] = [
            finding
            for finding in regions.get("residency_findings", [])
            if finding.get("severity") in ("critical", "high")
        ]
    return facts


ENGINES: dict[str, Callable[[EvaluationContext], dict]] = {
    "fabric": _fabric,
    "performance": _performance,
    "storage": _storage,
    "facility": _facility,
    "reliability": _reliability,
    "regions": _regions,
    "cost": _cost,
    "scaling": _scaling,
    "security": _security,
}
ENGINE_ORDER = list(ENGINES)


def catalog_with(entries: dict[str, list[dict]] | None) -> Catalog:
    """The built-in catalog plus a team's own entries ({kind: [entry, ...]}); a team entry
    with a built-in id replaces it (the team's negotiated version of that item)."""
    catalog = load_catalog()
    for kind, items in (entries or {}).items():
        if items:
            catalog = catalog.with_entries(kind, items, override=True)
    return catalog


def evaluate(
    spec_doc: dict,
    on_progress: ProgressCallback | None = None,
    catalog_entries: dict[str, list[dict]] | None = None,
    accepted_risks: list[dict] | None = None,
) -> dict:
    """Validate `spec_doc` (raises SpecValidationError naming the field) and run the engines.

    `on_progress(engine, completed)` is called before each engine starts; `catalog_entries`
    adds a team's own catalog entries; `accepted_risks` are the design's accepted security
    findings ({check_id, reason, owner, expires}).
    """
    spec = parse_design(spec_doc)
    catalog, price_errors = apply_catalog_prices(
        catalog_with(catalog_entries), spec.economics.price_overrides.catalog_prices
    )
    unknown = reference_errors(spec, catalog) + price_errors
    if unknown:
        raise SpecValidationError(unknown)
    ctx = EvaluationContext(
        spec=spec,
        catalog=catalog,
        gpu=resolve_gpu(spec.compute, catalog),
        accepted_risks=list(accepted_risks or []),
    )
    completed: list[str] = []
    for name in ENGINE_ORDER:
        if on_progress:
            on_progress(name, list(completed))
        ctx.results[name] = ENGINES[name](ctx)
        completed.append(name)
    return {
        "engine_version": _engine_version(),
        "spec_version": SPEC_VERSION,
        "spec_hash": spec_hash(spec),
        "gpu": {"id": ctx.gpu.id, "name": ctx.gpu.name},
        **ctx.results,
        "headline": headline(ctx.results),
    }


def headline(results: dict) -> dict:
    """The figures a review board compares, each read from its engine's result."""
    performance = results.get("performance", {})
    memory = performance.get("memory", {})
    power = results.get("facility", {}).get("power", {})
    reliability = results.get("reliability", {})
    time_to_train = reliability.get("time_to_train") or {}
    figures = {
        "step_time_s": performance.get("step_time_s"),
        # With the reliability engine's interruptions, checkpoints and restarts included.
        "time_to_train_days": time_to_train.get("with_failures_days")
        or performance.get("time_to_train_days"),
        "mfu": performance.get("mfu"),
        "tokens_per_s": performance.get("tokens_per_s"),
        "mtti_h": reliability.get("mtti_hours"),
        "goodput": reliability.get("goodput", {}).get("ratio")
        if isinstance(reliability.get("goodput"), dict)
        else reliability.get("goodput"),
        "it_power_kw": power.get("it_kw", {}).get("total"),
        "facility_power_kw": power.get("facility_kw"),
        "racks": results.get("facility", {}).get("rack_summary", {}).get("total_racks"),
        **cost_headline(results.get("cost", {})),
        "memory_per_gpu_gib": memory.get("total_gib"),
        "fits_in_hbm": memory.get("fits"),
        "parameters_total_b": performance.get("model", {}).get("parameters_total_b"),
        "security_score_pct": results.get("security", {}).get("score", {}).get("overall_pct"),
        "security_grade": results.get("security", {}).get("score", {}).get("grade"),
    }
    return {key: value for key, value in figures.items() if value is not None}


def cost_headline(cost: dict) -> dict:
    summary = cost.get("summary", {})
    return {
        "capex_usd": cost.get("capex", {}).get("total_usd"),
        "tco_usd": summary.get("tco_npv_usd"),
        "usd_per_gpu_hour": summary.get("cost_per_delivered_gpu_hour_usd"),
        "training_run_usd": summary.get("training_run_cost_usd"),
        "carbon_tco2e_per_year": summary.get("carbon_tco2e_per_year"),
        "usd_per_million_tokens": summary.get("cost_per_million_tokens_usd"),
    }


def _engine_version() -> str:
    from models_engine import __version__

    return __version__
