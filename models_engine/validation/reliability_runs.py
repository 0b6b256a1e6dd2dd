"""The reliability engine against published interruption counts of large training runs
(`published/reliability_published_runs.json`), on the example designs the engine test uses
(tests/engine/test_reliability_published_runs.py), run through the pipeline's own steps up to
reliability. Without the repository's `examples/` (an installed engine) the cases are reported
as not expressible, never dropped."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from models_engine.engines.reliability import evaluate_reliability
from models_engine.pipeline import STEPS, EvaluationContext
from models_engine.sites import site_slices
from models_engine.validate import validate_design

from .published import _architecture, _common, published_file
from .reference import Reference, relative_error

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
UPSTREAM = ("fabric", "storage_supply", "performance", "storage", "facility", "regions")
GPU_CLASSES = ("gpu", "hbm")


def case_design(case: dict) -> dict:
    doc = json.loads((EXAMPLES / f"{case['example']}.json").read_text())
    if case["compute"]:
        doc = copy.deepcopy(doc)
        doc["compute"].update(case["compute"])
        doc["compute"].pop("system_sku", None)
        doc["workload"]["parallelism"] = "auto"
    return doc


def reliability_of(doc: dict):
    """The typed reliability result of a design, fed exactly what `evaluate` feeds it."""
    design = validate_design(doc, None)
    ctx = EvaluationContext(
        spec=design.spec, catalog=design.catalog, gpu=design.gpu, sites=site_slices(design.spec)
    )
    for step in STEPS:
        if step.name in UPSTREAM:
            ctx.results[step.name] = step.run(ctx, **{n: ctx.results[n] for n in step.consumes})
    step = next(s for s in STEPS if s.name == "reliability")
    inputs = {name: ctx.results[name] for name in step.consumes}
    return evaluate_reliability(ctx.spec, ctx.catalog, **inputs)


def predicted(case: dict, result) -> float:
    if case["measure"] == "job_interruptions":
        return result.job_interruption_rate_per_day * case["days"]
    if case["measure"] == "node_failures_per_1000_node_days":
        return result.node_failure_rate_per_1000_node_days
    gpu_per_day = sum(
        c["interruptions_per_day"] for c in result.components if c["component"] in GPU_CLASSES
    )
    return gpu_per_day * case["days"]


def reliability_references() -> list[Reference]:
    doc = published_file("reliability_published_runs")
    rows = []
    for case in doc["cases"]:
        common = {
            **_common({**doc, "role": case["role"]}),
            "source_title": case["source_title"],
            "source_url": case["url"],
            "quantity": case.get("quantity", doc["quantity"]),
            "unit": case.get("unit", doc["unit"]),
        }
        sku = case["compute"].get("gpu_sku", "h100-sxm-80gb")
        base = {
            **common,
            "id": case["id"],
            "measured": case["what"],
            "where": case["where"],
            "published": case["published"],
            "gpu_sku": sku,
            "gpu_architecture": _architecture(sku),
            "note": f"published range {case['low']:g}-{case['high']:g}; {common['note']}",
        }
        if not (EXAMPLES / f"{case['example']}.json").exists():
            rows.append(Reference(**base, not_expressible="example designs not installed"))
            continue
        design = case_design(case)
        value = predicted(case, reliability_of(design))
        rows.append(
            Reference(
                **base,
                gpus=design["compute"]["gpu_count"],
                model=value,
                error=relative_error(value, case["published"]),
            )
        )
    return rows
