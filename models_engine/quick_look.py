"""The editor's live 'quick look': a few headline figures of a (possibly half-finished) design,
computed by the engines in well under a request's time."""

from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.facility import evaluate_facility
from models_engine.engines.performance.memory_fit import evaluate_memory
from models_engine.hardware import resolve_gpu
from models_engine.pipeline import catalog_with
from models_engine.price_overrides import apply_catalog_prices
from models_engine.spec import SpecValidationError, parse_design, reference_errors


def quick_look(spec_doc: dict, catalog_entries: dict[str, list[dict]] | None = None) -> dict:
    """{"valid": bool, "errors": [...]} plus, when valid, the headline figures."""
    try:
        spec = parse_design(spec_doc)
    except SpecValidationError as exc:
        return {"valid": False, "errors": exc.errors}
    catalog, price_errors = apply_catalog_prices(
        catalog_with(catalog_entries), spec.economics.price_overrides.catalog_prices
    )
    unknown = reference_errors(spec, catalog) + price_errors
    if unknown:
        return {"valid": False, "errors": unknown}
    gpu = resolve_gpu(spec.compute, catalog)
    performance = evaluate_memory(spec, gpu)
    fabric = evaluate_fabric(spec, catalog)
    facility = evaluate_facility(spec, catalog, fabric=fabric)
    compute = spec.compute
    return {
        "valid": True,
        "errors": [],
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
        "racks": facility["rack_summary"].get("total_racks"),
        "max_rack_kw": facility["rack_summary"].get("max_rack_kw"),
        "rack_power_limit_kw": facility["rack_summary"].get("rack_power_limit_kw"),
        "it_power_kw": facility["power"]["it_kw"]["total"],
        "facility_power_kw": facility["power"]["facility_kw"],
        "cooling_feasible": facility["cooling"].get("feasible"),
        "scale_out_switches": sum(fabric["breakdown"]["switches_by_tier"].values()),
        "parameters_total_b": performance["model"]["parameters_total_b"],
        "layout": performance["layout"],
        "memory": performance["memory"],
    }
