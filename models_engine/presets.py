"""Design presets built from a catalog system: the compute, fabric and facility sections that
the system implies, with a small training workload (a Llama 3.1 8B-class model, auto layout)
the architect then edits. Every figure comes from the catalog entry."""

from models_engine.catalog import Catalog
from models_engine.spec import design_to_dict, parse_design

# Llama 3.1 8B (Meta model card: 32 layers, d_model 4096, 32 heads / 8 KV heads, FFN 14336,
# vocabulary 128,256), a workload every system in the catalog can train.
STARTER_WORKLOAD = {
    "kind": "training",
    "parameters_b": 8.0,
    "layers": 32,
    "hidden_size": 4096,
    "attention_heads": 32,
    "kv_heads": 8,
    "ffn_hidden_size": 14336,
    "gated_mlp": True,
    "sequence_length": 8192,
    "vocab_size": 128256,
    "tokens_to_train": 1e12,
    "precision": "bf16",
    "parallelism": "auto",
}
# Technology and switch that match each scale-out NIC of the catalog.
FABRIC_FOR_NIC = {
    "cx7-ndr-400g": ("infiniband-ndr", "nvidia-qm9700", 400),
    "cx8-xdr-800g": ("infiniband-xdr", "nvidia-q3400", 800),
}


def _compute(system, gpu) -> dict:
    rack_scale = system.form == "rack"
    gpus_per_node = (
        system.gpus_per_system // system.compute_trays if rack_scale else (system.gpus_per_system)
    )
    domain_kind = (
        "nvl72"
        if gpu.scale_up_domain_gpus == 72
        else ("hgx-nvswitch-8" if gpu.scale_up_domain_gpus == 8 else "custom")
    )
    return {
        "gpu_sku": gpu.id,
        "system_sku": system.id,
        "gpus_per_node": gpus_per_node,
        "nvlink_domain": {"kind": domain_kind, "gpus": gpu.scale_up_domain_gpus},
    }


def spec_from_system(catalog: Catalog, system_id: str, systems: int, name: str) -> dict:
    """A valid design document for `systems` units of a catalog system (raises
    SpecValidationError or CatalogLookupError naming what does not fit)."""
    system = catalog.get("systems", system_id)
    gpu = catalog.get("gpus", system.gpu_id)
    compute = _compute(system, gpu)
    gpu_count = system.gpus_per_system * systems
    doc = {
        "name": name,
        "description": f"{systems} x {system.name} from the catalog preset.",
        "workload": {**STARTER_WORKLOAD, "global_batch_sequences": max(gpu_count, 8)},
        "compute": {**compute, "gpu_count": gpu_count},
    }
    nic = system.scale_out_nic_id
    if nic in FABRIC_FOR_NIC:
        technology, switch, speed = FABRIC_FOR_NIC[nic]
        nics_per_node = (
            system.scale_out_nics_per_system * compute["gpus_per_node"] // (system.gpus_per_system)
        )
        doc["fabric"] = {
            "topology": "rail-optimized",
            "technology": technology,
            "switch_sku": switch,
            "nic_sku": nic,
            "nic_speed_gbps": speed,
            "nics_per_node": max(1, nics_per_node),
        }
    if system.liquid_cooling_required:
        doc["facility"] = {
            "cooling": "direct-to-chip",
            "rack_power_limit_kw": max(system.power_max_kw or 0, 132),
        }
    return design_to_dict(parse_design(doc))
