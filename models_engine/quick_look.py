"""The editor's live 'quick look': a few headline figures of a (possibly half-finished) design.

It validates through the one entry point (`models_engine.validate.validate_design`) and runs the
pipeline's own steps for fabric -> storage supply -> performance -> storage -> facility
(`run_engines(only=...)`), so every figure is the engines' own: memory per GPU and the layout
are the ones the performance engine picked (the same a full run reports), racks and power the
facility totals, switches the fabric totals. When an engine cannot build the design (no layout
fits 10 million GPUs, say), the quick look says so with the engine's message instead of a
figure.
"""

from __future__ import annotations

from models_engine.engines.fabric.result import FabricResult
from models_engine.engines.facility.result import FacilityResult
from models_engine.engines.performance.result import PerformanceResult
from models_engine.pipeline import run_engines
from models_engine.spec import SpecValidationError
from models_engine.validate import ValidDesign, validate_design

QUICK_ENGINES = ("fabric", "storage_supply", "performance", "storage", "facility")


def quick_look(spec_doc: dict, catalog_entries: dict[str, list[dict]] | None = None) -> dict:
    """{"valid": bool, "errors": [...]} plus, when valid, the headline figures; when an
    engine cannot build the design, "engine_error" holds its message and "fits" is False."""
    try:
        design = validate_design(spec_doc, catalog_entries)
    except SpecValidationError as exc:
        return {"valid": False, "errors": exc.errors}
    look = {"valid": True, "errors": [], **_design_figures(design)}
    try:
        results = run_engines(design.spec, design.catalog, design.gpu, only=QUICK_ENGINES)
    except (ValueError, ArithmeticError) as exc:  # the engines' "cannot build this" errors
        return {**look, "engine_error": str(exc), "fits": False}
    return {**look, "engine_error": None, **_engine_figures(results)}


def _design_figures(design: ValidDesign) -> dict:
    """What the spec and the catalog say, before any engine runs."""
    compute, gpu = design.spec.compute, design.gpu
    return {
        "gpu": {
            "name": gpu.name,
            "bf16_dense_tflops": gpu.bf16_dense_tflops,
            "fp8_dense_tflops": gpu.fp8_dense_tflops,
            "hbm_gb": gpu.hbm_gb,
            "hbm_bandwidth_tbytes_per_s": gpu.hbm_bandwidth_tbytes_per_s,
            "tdp_w": gpu.tdp_w,
        },
        "gpu_count": compute.gpu_count,
        "gpus_per_node": compute.gpus_per_node,
        "nodes": compute.gpu_count // compute.gpus_per_node,
        "nvlink_domain_gpus": compute.nvlink_domain.gpus,
        "gpu_tdp_total_kw": compute.gpu_count * gpu.tdp_w / 1000,
    }


def _engine_figures(results: dict) -> dict:
    fabric: FabricResult = results["fabric"]
    performance: PerformanceResult = results["performance"]
    facility: FacilityResult = results["facility"]
    densest = max(facility.sites, key=lambda site: site.rack_summary.max_rack_kw)
    return {
        "fits": performance.memory.fits,
        "parameters_total_b": performance.model.parameters_total_b,
        "layout": performance.layout.model_dump(),
        "memory": performance.memory.model_dump(),
        "racks": facility.totals.total_racks,
        "max_rack_kw": densest.rack_summary.max_rack_kw,
        "rack_power_limit_kw": densest.rack_summary.rack_power_limit_kw,
        "it_power_kw": facility.totals.it_kw,
        "facility_power_kw": facility.totals.facility_kw,
        "cooling_feasible": all(site.cooling.feasible for site in facility.sites),
        "scale_out_switches": fabric.totals.switches.total,
        "sites": [
            {
                "site_id": site.site_id,
                "site_name": site.site_name,
                "gpus": site.gpus,
                "switches": site.scale_out.switches.total,
                "racks": facility.site(site.site_id).rack_summary.total_racks,
                "it_power_kw": facility.site(site.site_id).power.it_kw.total,
                "facility_power_kw": facility.site(site.site_id).power.facility_kw,
            }
            for site in fabric.sites
        ],
    }
