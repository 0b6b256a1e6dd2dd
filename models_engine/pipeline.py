"""Run every engine on a design as a declared graph and return the stored JSON of each typed
result plus the headline.

Each step names the typed results it consumes (`Step.consumes`); the pipeline runs the steps
in that order and hands each one exactly those results. One owner per quantity (see
`models_engine/OWNERS.md`): fabric owns switches, links and optics; facility racks, power and
cooling; storage checkpoint bytes and times and the read bandwidth each site's storage
provides (`storage_supply`, run before performance, which takes its I/O stall from it);
performance the single-site step; regions what the WAN adds; reliability interruptions and
time to train with failures; cost prices the others' bills of materials. Sites are
first-class: fabric, facility and storage are sized per site (`models_engine.sites`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from models_engine.catalog import Catalog
from models_engine.engines.cost import evaluate_cost
from models_engine.engines.cost.assumptions import design_overrides
from models_engine.engines.cost.result import CostResult
from models_engine.engines.fabric import FabricResult, evaluate_fabric
from models_engine.engines.facility import FacilityResult, evaluate_facility
from models_engine.engines.network import NetworkResult, evaluate_network
from models_engine.engines.performance import evaluate_performance
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.physical import PhysicalResult, evaluate_physical
from models_engine.engines.regions import evaluate_regions
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.regions.site_fill import fill_sites
from models_engine.engines.reliability import evaluate_reliability
from models_engine.engines.reliability.result import ReliabilityResult
from models_engine.engines.result_base import RESULT_SCHEMA_VERSION, EngineResult
from models_engine.engines.security import evaluate_security
from models_engine.engines.security.result import SecurityResult
from models_engine.engines.storage import (
    StorageResult,
    StorageSupply,
    evaluate_storage,
    evaluate_storage_supply,
)
from models_engine.engines.sweep import scaling_curve
from models_engine.engines.sweep.result import ScalingResult
from models_engine.hardware import GpuFigures
from models_engine.headline import headline
from models_engine.sites import SiteSlice, site_slices
from models_engine.spec import SPEC_VERSION, DesignSpec, spec_hash
from models_engine.validate import catalog_with, validate_design

ProgressCallback = Callable[[str, list[str]], None]
MONTE_CARLO_RUNS = 10_000


@dataclass
class EvaluationContext:
    spec: DesignSpec
    catalog: Catalog
    gpu: GpuFigures
    sites: list[SiteSlice]
    accepted_risks: list[dict] = field(default_factory=list)
    results: dict[str, EngineResult] = field(default_factory=dict)


@dataclass(frozen=True)
class Step:
    name: str
    consumes: tuple[str, ...]
    run: Callable[..., EngineResult]


def _fabric(ctx: EvaluationContext) -> FabricResult:
    return evaluate_fabric(ctx.spec, ctx.catalog, sites=ctx.sites)


def _network(ctx: EvaluationContext, fabric: FabricResult) -> NetworkResult:
    return evaluate_network(ctx.spec, fabric, ctx.catalog)


def _storage_supply(ctx: EvaluationContext, fabric: FabricResult) -> StorageSupply:
    return evaluate_storage_supply(ctx.spec, ctx.catalog, fabric=fabric, sites=ctx.sites)


def _performance(
    ctx: EvaluationContext, fabric: FabricResult, storage_supply: StorageSupply
) -> PerformanceResult:
    return evaluate_performance(
        ctx.spec, ctx.gpu, ctx.catalog, fabric=fabric, storage_supply=storage_supply
    )


def _storage(
    ctx: EvaluationContext, performance: PerformanceResult, storage_supply: StorageSupply
) -> StorageResult:
    return evaluate_storage(
        ctx.spec,
        ctx.catalog,
        storage_supply=storage_supply,
        tokens_per_s=performance.tokens_per_s,
        parameters=performance.model.parameters,
        sites=ctx.sites,
    )


def _facility(
    ctx: EvaluationContext, fabric: FabricResult, storage: StorageResult
) -> FacilityResult:
    return evaluate_facility(ctx.spec, ctx.catalog, fabric=fabric, storage=storage, sites=ctx.sites)


def _physical(
    ctx: EvaluationContext, fabric: FabricResult, facility: FacilityResult, network: NetworkResult
) -> PhysicalResult:
    return evaluate_physical(
        ctx.spec, ctx.catalog, fabric=fabric, facility=facility, network=network
    )


def _regions(
    ctx: EvaluationContext, performance: PerformanceResult, storage: StorageResult
) -> RegionsResult:
    return evaluate_regions(ctx.spec, ctx.catalog, performance=performance, storage=storage)


def _reliability(
    ctx: EvaluationContext,
    fabric: FabricResult,
    storage: StorageResult,
    facility: FacilityResult,
    performance: PerformanceResult,
    regions: RegionsResult,
    monte_carlo_runs: int = MONTE_CARLO_RUNS,
) -> ReliabilityResult:
    return evaluate_reliability(
        ctx.spec,
        ctx.catalog,
        fabric=fabric,
        storage=storage,
        facility=facility,
        performance=performance,
        regions=regions,
        # A seeded Monte Carlo of time to train: the spread, not only the mean (~3 ms; a sweep,
        # which reads only the closed-form mean, passes 0).
        monte_carlo_runs=monte_carlo_runs,
        seed=0,
    )


def _cost(
    ctx: EvaluationContext,
    fabric: FabricResult,
    facility: FacilityResult,
    storage: StorageResult,
    performance: PerformanceResult,
    regions: RegionsResult,
    reliability: ReliabilityResult,
) -> CostResult:
    return evaluate_cost(
        ctx.spec,
        ctx.catalog,
        fabric=fabric,
        facility=facility,
        storage=storage,
        performance=performance,
        regions=regions,
        reliability=reliability,
        # The design's own cost figures replace assumptions.yaml entries (traced as overrides).
        assumption_overrides=design_overrides(ctx.spec.economics.cost_assumptions),
    )


def _scaling(
    ctx: EvaluationContext, performance: PerformanceResult, regions: RegionsResult
) -> ScalingResult:
    return scaling_curve(ctx.spec, ctx.gpu, ctx.catalog, performance=performance, regions=regions)


def _security(
    ctx: EvaluationContext, fabric: FabricResult, network: NetworkResult, regions: RegionsResult
) -> SecurityResult:
    return SecurityResult.model_validate(
        evaluate_security(
            ctx.spec,
            facts=security_facts(fabric, regions, network),
            accepted_risks=ctx.accepted_risks,
        )
    )


def security_facts(
    fabric: FabricResult, regions: RegionsResult, network: NetworkResult | None = None
) -> dict:
    """Facts other engines established, in the security engine's vocabulary; facts not
    given here are derived from the spec by the security engine itself. The network plan's
    isolation facts (tenant segments, BGP session protection, where management lives) come
    from its typed result."""
    # What the fabric engine actually built: a converged network rides the compute fabric
    # (at any site).
    return {
        "fabric.frontend_on_compute_fabric": any(
            site.frontend_network.mode == "converged" for site in fabric.sites
        ),
        "fabric.storage_on_compute_fabric": any(
            site.storage_network.mode == "converged" for site in fabric.sites
        ),
        "regions.residency_violations": [
            finding
            for finding in regions.residency_findings
            if finding.get("severity") in ("critical", "high")
        ],
        **(network.isolation.security_facts() if network is not None else {}),
    }


STEPS: tuple[Step, ...] = (
    Step("fabric", (), _fabric),
    Step("network", ("fabric",), _network),
    Step("storage_supply", ("fabric",), _storage_supply),
    Step("performance", ("fabric", "storage_supply"), _performance),
    Step("storage", ("performance", "storage_supply"), _storage),
    Step("facility", ("fabric", "storage"), _facility),
    Step("physical", ("fabric", "facility", "network"), _physical),
    Step("regions", ("performance", "storage"), _regions),
    Step(
        "reliability",
        ("fabric", "storage", "facility", "performance", "regions"),
        _reliability,
    ),
    Step(
        "cost",
        ("fabric", "facility", "storage", "performance", "regions", "reliability"),
        _cost,
    ),
    Step("scaling", ("performance", "regions"), _scaling),
    Step("security", ("fabric", "network", "regions"), _security),
)
ENGINE_ORDER = [step.name for step in STEPS]


def run_engines(
    spec: DesignSpec,
    catalog: Catalog,
    gpu: GpuFigures,
    *,
    on_progress: ProgressCallback | None = None,
    accepted_risks: list[dict] | None = None,
    only: tuple[str, ...] | None = None,
) -> dict[str, EngineResult]:
    """Every engine's typed result, keyed by engine name.

    `only` runs just the named steps (in the graph's order), e.g. the quick look's
    ("fabric", "storage_supply", "performance", "storage", "facility"); every step it names
    must have what it consumes among them (ValueError otherwise), so a partial run is the full
    run's prefix.
    """
    steps = STEPS if only is None else tuple(step for step in STEPS if step.name in only)
    if only is not None:
        unknown = set(only) - set(ENGINE_ORDER)
        missing = {need for step in steps for need in step.consumes} - set(only)
        if unknown or missing:
            raise ValueError(
                f"run_engines(only=...): unknown steps {sorted(unknown)}, "
                f"missing inputs {sorted(missing)}"
            )
    # Each site's price, carbon, water stress and climate: the design's, else its catalog
    # region's, else the US defaults (engines/regions/site_fill.py). The stored design keeps
    # its nulls, so choosing another region later refills them.
    spec = fill_sites(spec, catalog)
    ctx = EvaluationContext(
        spec=spec,
        catalog=catalog,
        gpu=gpu,
        sites=site_slices(spec),
        accepted_risks=list(accepted_risks or []),
    )
    completed: list[str] = []
    for step in steps:
        if on_progress:
            on_progress(step.name, list(completed))
        inputs = {name: ctx.results[name] for name in step.consumes}
        ctx.results[step.name] = step.run(ctx, **inputs)
        completed.append(step.name)
    return ctx.results


def evaluate(
    spec_doc: dict,
    on_progress: ProgressCallback | None = None,
    catalog_entries: dict[str, list[dict]] | None = None,
    accepted_risks: list[dict] | None = None,
) -> dict:
    """Validate `spec_doc` (raises SpecValidationError naming the field) and run the engines.

    `on_progress(engine, completed)` is called before each engine starts; `catalog_entries`
    adds a team's own catalog entries; `accepted_risks` are the design's accepted security
    findings ({check_id, reason, owner, expires}). Returns the stored JSON: each engine's
    typed result serialised once, plus the headline read from those typed results.
    """
    design = validate_design(spec_doc, catalog_entries)
    results = run_engines(
        design.spec,
        design.catalog,
        design.gpu,
        on_progress=on_progress,
        accepted_risks=accepted_risks,
    )
    return {
        "engine_version": _engine_version(),
        "spec_version": SPEC_VERSION,
        "result_schema_version": RESULT_SCHEMA_VERSION,
        "spec_hash": spec_hash(design.spec),
        "gpu": {"id": design.gpu.id, "name": design.gpu.name},
        **{name: result.to_json() for name, result in results.items()},
        "headline": headline(results),
    }


# The engines the headline reads (models_engine.headline) and, through the graph, everything
# they consume: every step but those no headline figure depends on (the scaling curve, ~2/3 of
# a 16K-GPU design's evaluation).
HEADLINE_READS = ("performance", "regions", "facility", "reliability", "cost", "security")


def steps_with_inputs(names: tuple[str, ...]) -> tuple[str, ...]:
    """The named steps and, through the graph, every step they consume, in the graph's order."""
    consumes = {step.name: step.consumes for step in STEPS}
    needed, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name not in needed:
            needed.add(name)
            todo.extend(consumes[name])
    return tuple(step.name for step in STEPS if step.name in needed)


HEADLINE_STEPS = steps_with_inputs(HEADLINE_READS)


def evaluate_headline(
    spec_doc: dict,
    catalog_entries: dict[str, list[dict]] | None = None,
    accepted_risks: list[dict] | None = None,
) -> dict:
    """The headline `evaluate` would report, from only the engines it reads: the fast path
    for re-evaluating a what-if in place (validation errors as `evaluate`)."""
    design = validate_design(spec_doc, catalog_entries)
    results = run_engines(
        design.spec,
        design.catalog,
        design.gpu,
        accepted_risks=accepted_risks,
        only=HEADLINE_STEPS,
    )
    return headline(results)


def _engine_version() -> str:
    from models_engine import __version__

    return __version__


__all__ = [
    "ENGINE_ORDER",
    "HEADLINE_STEPS",
    "STEPS",
    "catalog_with",
    "evaluate",
    "evaluate_headline",
    "run_engines",
    "steps_with_inputs",
]
