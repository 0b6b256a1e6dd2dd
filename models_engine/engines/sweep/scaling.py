"""Time to train against GPU count: the design re-evaluated at smaller and larger scale.

Data parallelism is what changes with scale (TP, PP, CP and EP stay as designed, so the layout
keeps fitting in memory); the global batch stays as designed, so at larger scale each replica
runs fewer micro-batches and the pipeline bubble and exposed communication grow, which is what
bends the curve. An 'auto' design is searched again at every point. A scale at which the batch
no longer divides over the replicas is reported as skipped, with the reason.

Every point is the job's step with the WAN, failure-free: the point at the design's size is
the design's own result (`regions.training`); every other point runs the fabric engine (its
sites keep their shares of the GPUs), the storage engine's supply on that fabric
(`evaluate_storage_supply`: what each site's storage provides at that size), the performance
engine on both and the regions engine's WAN-added rule (`training_with_wan`) at that size.
Nothing is re-derived here.
"""

from __future__ import annotations

from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance import evaluate_performance
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.regions import training_with_wan
from models_engine.engines.regions.result import RegionsResult
from models_engine.engines.storage import evaluate_storage_supply
from models_engine.spec import SpecValidationError, design_to_dict, parse_design

from .result import ScalingPoint, ScalingResult

SCALE_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)
DESIGN_SCALE = 1.0
NOTE = (
    "dp scales with the GPU count; global batch, TP, PP, CP, EP, sites and cross-site strategy "
    "as designed; step time includes what the WAN adds; no interruptions (failure-free time "
    "to train)"
)


def _scaled_doc(doc: dict, factor: float) -> dict:
    scaled = {**doc, "compute": {**doc["compute"]}, "workload": {**doc["workload"]}}
    gpu_count = doc["compute"]["gpu_count"] * factor
    if not float(gpu_count).is_integer():
        raise ValueError(f"{doc['compute']['gpu_count']} x {factor} GPUs is not whole")
    scaled["compute"]["gpu_count"] = round(gpu_count)
    parallelism = doc["workload"]["parallelism"]
    if isinstance(parallelism, dict):
        dp = parallelism["dp"] * factor
        if not float(dp).is_integer():
            raise ValueError(f"dp {parallelism['dp']} x {factor} is not a whole number")
        scaled["workload"]["parallelism"] = {**parallelism, "dp": int(dp)}
    return scaled


def scaling_curve(
    spec,
    gpu,
    catalog,
    *,
    performance: PerformanceResult,
    regions: RegionsResult,
    factors=SCALE_FACTORS,
) -> ScalingResult:
    """Failure-free time to train at each scale of the design's GPU count; the design's own
    point is read from `performance` and `regions` (not recomputed)."""
    if not performance.training:
        return ScalingResult(points=[], skipped=[], note="inference designs do not train")
    doc = design_to_dict(spec)
    points, skipped = [], []
    for factor in factors:
        if factor == DESIGN_SCALE:
            points.append(_point(factor, spec.compute.gpu_count, performance, regions.training))
            continue
        try:
            variant = parse_design(_scaled_doc(doc, factor))
            fabric = evaluate_fabric(variant, catalog)
            supply = evaluate_storage_supply(variant, catalog, fabric=fabric)
            result = evaluate_performance(
                variant, gpu, catalog, fabric=fabric, storage_supply=supply
            )
        except ValueError as exc:  # SpecValidationError is one; so is "no layout fits"
            reason = exc.errors[0]["message"] if isinstance(exc, SpecValidationError) else str(exc)
            skipped.append({"scale": factor, "reason": reason})
            continue
        points.append(
            _point(factor, variant.compute.gpu_count, result, training_with_wan(variant, result))
        )
    return ScalingResult(points=points, skipped=skipped, note=NOTE)


def _point(factor, gpu_count, performance: PerformanceResult, training) -> ScalingPoint:
    return ScalingPoint(
        scale=factor,
        gpu_count=gpu_count,
        time_to_train_failure_free_days=training.time_to_train_failure_free_days,
        step_time_s=training.step_time_s,
        mfu=performance.mfu,
        fits_memory=performance.memory.fits,
        is_design=factor == DESIGN_SCALE,
    )
