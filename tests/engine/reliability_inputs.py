"""The typed results the reliability engine consumes, built by the pipeline's own steps (the
declared graph up to reliability), so the tests feed it exactly what `evaluate` does."""

from __future__ import annotations

from models_engine.engines.reliability import evaluate_reliability
from models_engine.pipeline import STEPS, EvaluationContext, Step
from models_engine.sites import site_slices
from models_engine.validate import validate_design

UPSTREAM = ("fabric", "storage_supply", "performance", "storage", "facility", "regions")
RELIABILITY: Step = next(step for step in STEPS if step.name == "reliability")


def upstream_results(doc: dict) -> tuple:
    """(spec, catalog, results by engine name) for a design document."""
    design = validate_design(doc, None)
    ctx = EvaluationContext(
        spec=design.spec, catalog=design.catalog, gpu=design.gpu, sites=site_slices(design.spec)
    )
    for step in STEPS:
        if step.name not in UPSTREAM:
            continue
        ctx.results[step.name] = step.run(ctx, **{n: ctx.results[n] for n in step.consumes})
    return ctx.spec, ctx.catalog, ctx.results


def reliability_of(doc: dict, **kwargs):
    """The typed reliability result of a design; `kwargs` replace upstream results or add
    options (monte_carlo_runs, seed, rate_overrides, ...)."""
    spec, catalog, results = upstream_results(doc)
    inputs = {name: results[name] for name in RELIABILITY.consumes}
    inputs.update(kwargs)
    return evaluate_reliability(spec, catalog, **inputs)
