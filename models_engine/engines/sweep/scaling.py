"""Time to train against GPU count: the design re-evaluated at smaller and larger scale.

Data parallelism is what changes with scale (TP, PP, CP and EP stay as designed, so the layout
keeps fitting in memory); the global batch stays as designed, so at larger scale each replica
runs fewer micro-batches and the pipeline bubble and exposed communication grow, which is what
bends the curve. An 'auto' design is searched again at every point. A scale at which the batch
no longer divides over the replicas is reported as skipped, with the reason."""

from models_engine.engines.performance import evaluate_performance
from models_engine.spec import SpecValidationError, design_to_dict, parse_design

SCALE_FACTORS = (0.25, 0.5, 1.0, 2.0, 4.0)


def _scaled_doc(doc: dict, factor: float) -> dict:
    scaled = {**doc, "compute": {**doc["compute"]}, "workload": {**doc["workload"]}}
    gpu_count = doc["compute"]["gpu_count"] * factor
    scaled["compute"]["gpu_count"] = round(gpu_count)
    parallelism = doc["workload"]["parallelism"]
    if isinstance(parallelism, dict):
        scaled["workload"]["parallelism"] = {**parallelism, "dp": parallelism["dp"] * factor}
        if not float(scaled["workload"]["parallelism"]["dp"]).is_integer():
            raise ValueError(f"dp {parallelism['dp']} x {factor} is not a whole number")
        scaled["workload"]["parallelism"]["dp"] = int(scaled["workload"]["parallelism"]["dp"])
    # One site: the sweep asks how the job scales, not how the WAN does.
    sites = doc["regions"]["sites"]
    if len(sites) > 1:
        scaled["regions"] = {
            **doc["regions"],
            "sites": [{**sites[0], "gpu_share": 1.0}],
            "wan_links": [],
            "cross_region_strategy": "none",
            "datasets": [],
        }
    if not float(gpu_count).is_integer():
        raise ValueError(f"{doc['compute']['gpu_count']} x {factor} GPUs is not whole")
    return scaled


def scaling_curve(spec, gpu, catalog, factors=SCALE_FACTORS) -> dict:
    if spec.workload.kind != "training":
        return {"points": [], "skipped": [], "note": "inference designs do not train"}
    doc = design_to_dict(spec)
    points, skipped = [], []
    for factor in factors:
        try:
            variant = parse_design(_scaled_doc(doc, factor))
        except (SpecValidationError, ValueError) as exc:
            reason = exc.errors[0]["message"] if isinstance(exc, SpecValidationError) else str(exc)
            skipped.append({"scale": factor, "reason": reason})
            continue
        result = evaluate_performance(variant, gpu, catalog)
        points.append(
            {
                "scale": factor,
                "gpu_count": variant.compute.gpu_count,
                "time_to_train_days": result.get("time_to_train_days"),
                "step_time_s": result.get("step_time_s"),
                "mfu": result.get("mfu"),
                "fits_memory": result.get("memory", {}).get("fits"),
                "is_design": factor == 1.0,
            }
        )
    return {
        "points": points,
        "skipped": skipped,
        "note": "dp scales with the GPU count; global batch, TP, PP, CP, EP as designed; "
        "no interruptions (failure-free time to train)",
    }
