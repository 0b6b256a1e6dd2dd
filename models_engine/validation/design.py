"""A published case as a design spec, or the reason the spec cannot express it yet.

The case is entered as published: model shape, layout, precision and software stack go into the
spec unchanged. Whatever the spec has no field or value for (a stack, a precision, a schedule, an
attention variant) makes the case "not expressible", with the field named; nothing is bent to
fit. The hardware around the GPUs is the published system's (`SYSTEMS`).
"""

from __future__ import annotations

from typing import Any, get_args

from models_engine.spec import SpecValidationError, parse_design
from models_engine.spec.design import DesignSpec
from models_engine.spec.workload import MixtureOfExperts, Parallelism, Workload

from .registry import Case

# The systems the sources ran on: node size, scale-out NICs and the NVLink domain.
# DGX A100 (Selene): 8 x ConnectX-6 HDR 200 Gb/s; DGX H100 / B200: 8 x ConnectX-7 400 Gb/s
# (dgxc-benchmarking README reference architectures); GB200 NVL72 tray: 4 GPUs, 1 x CX-7 400G
# per GPU; GB300 NVL72 tray: 1 x CX-8 800G per GPU, DGX B300: 8 x CX-8 800G (same README);
# Meta Grand Teton (Llama 3 paper Sec. 3.3.1): 8 H100 per server, 400 Gb/s RoCE per GPU.
# Kempner Institute H200 nodes
# (KempnerForge benchmark reports): 4 H200 SXM per node joined by NVLink, the 4-GPU HGX board
# whose GPUs link point to point (no NVSwitch: a mesh, 6 of each GPU's 18 links per peer),
# InfiniBand NDR between nodes; the NIC count is not printed: one 400G NIC per
# GPU ASSUMED, as on the other NDR systems.
SYSTEMS: dict[str, dict[str, Any]] = {
    "dgx-a100": {"gpus_per_node": 8, "nic_sku": "cx6-hdr-200g", "nic_gbps": 200, "nics": 8},
    "dgx-h100": {"gpus_per_node": 8, "nic_sku": "cx7-ndr-400g", "nic_gbps": 400, "nics": 8},
    "grand-teton-h100": {
        "gpus_per_node": 8,
        "technology": "roce-400g",
        "nic_sku": "cx7-ndr-400g",
        "nic_gbps": 400,
        "nics": 8,
    },
    "dgx-b200": {"gpus_per_node": 8, "nic_sku": "cx7-ndr-400g", "nic_gbps": 400, "nics": 8},
    "dgx-b300": {
        "gpus_per_node": 8,
        "nic_sku": "cx8-xdr-800g",
        "nic_gbps": 800,
        "nics": 8,
        "technology": "infiniband-xdr",
    },
    "gb200-nvl72": {"gpus_per_node": 4, "nic_sku": "cx7-ndr-400g", "nic_gbps": 400, "nics": 4},
    "kempner-h200": {
        "gpus_per_node": 4,
        "nvlink_domain_gpus": 4,
        "nvlink_topology": "mesh",
        "nic_sku": "cx7-ndr-400g",
        "nic_gbps": 400,
        "nics": 4,
    },
    "gb300-nvl72": {
        "gpus_per_node": 4,
        "nic_sku": "cx8-xdr-800g",
        "nic_gbps": 800,
        "nics": 4,
        "technology": "infiniband-xdr",
    },
}
# NVL72 jobs of 64+ GPUs use 16 of a rack's 18 trays (a 64-GPU NVLink partition, as in
# tests/engine/test_performance_moe.py); the spec only accepts whole 72-GPU racks as kind
# nvl72, so the domain is entered as custom. ASSUMPTION (the recipes do not print it).
NVL72_JOB_DOMAIN_GPUS = 64

# While the spec has no workload.software_stack, the engine runs every SKU with one stack
# (efficiency_data.py). A newer release of the same Megatron-Core / NeMo family is run on it
# and marked "approximated"; any other stack is not expressible.
SAME_FAMILY_TODAY = {
    "megatron-core-te-2025": "megatron-core-te-2024",
    "nemo-2025-blackwell": "megatron-core-te-2024",
}


class NotExpressible(Exception):
    """The spec cannot state this case yet; the message says which field is missing."""


def _engine_default_stack(gpu_sku: str) -> str:
    # Only needed while the spec has no software_stack; imported here so that the registry
    # does not depend on the engine's internal tables once it has.
    from models_engine.engines.performance import efficiency_data

    entry = efficiency_data.SKU_EFFICIENCY.get(gpu_sku, efficiency_data.DEFAULT_EFFICIENCY)
    return entry["stack"]


def _stack_field() -> tuple[bool, tuple[str, ...] | None]:
    """(whether the spec's software_stack is an object with a `name`, the closed list of
    names when the spec states one)."""
    annotation = Workload.model_fields["software_stack"].annotation
    as_object = isinstance(annotation, type) and "name" in getattr(annotation, "model_fields", {})
    name_annotation = annotation.model_fields["name"].annotation if as_object else annotation
    names = tuple(a for a in get_args(name_annotation) if isinstance(a, str))
    return as_object, names or None


def stack_for_today(case: Case) -> tuple[Any, str]:
    """(value for workload.software_stack, or None while the spec lacks it; a note).
    A newer release of a stack the spec does not list yet runs on its predecessor, marked
    "approximated"; any other stack the engine cannot run raises NotExpressible."""
    wanted = case.stack.engine
    if "software_stack" in Workload.model_fields:
        as_object, names = _stack_field()
        name, note = wanted, ""
        fallback = SAME_FAMILY_TODAY.get(wanted)
        if names is not None and wanted not in names and fallback in names:
            name, note = fallback, f"stack {wanted} approximated by {fallback}"
        return ({"name": name, **dict(case.stack.options)} if as_object else name), note
    default = _engine_default_stack(case.gpu_sku)
    if wanted == default:
        return None, ""
    if SAME_FAMILY_TODAY.get(wanted) == default:
        return None, f"stack {wanted} approximated by {default}"
    raise NotExpressible(
        f"spec has no workload.software_stack; the engine runs {case.gpu_sku} as {default}, "
        f"the run used {case.stack.published} ({wanted})"
    )


def _unknown_fields(values: dict, model: type, prefix: str) -> list[str]:
    return [f"{prefix}{key}" for key in values if key not in model.model_fields]


def _layout(case: Case) -> dict[str, Any]:
    layout = dict(case.layout)
    if "dp" not in layout:
        shards = layout.get("tp", 1) * layout.get("pp", 1) * layout.get("cp", 1)
        layout["dp"] = case.gpus // shards
    return layout


def _compute(case: Case) -> dict[str, Any]:
    system = SYSTEMS[case.system]
    compute: dict[str, Any] = {
        "gpu_sku": case.gpu_sku,
        "gpu_count": case.gpus,
        "gpus_per_node": system["gpus_per_node"],
    }
    if case.system.endswith("nvl72"):
        domain = min(NVL72_JOB_DOMAIN_GPUS, case.gpus)
        compute["nvlink_domain"] = {"kind": "custom", "gpus": domain}
    elif "nvlink_domain_gpus" in system:
        compute["nvlink_domain"] = {
            "kind": "custom",
            "gpus": system["nvlink_domain_gpus"],
            "topology": system.get("nvlink_topology"),
        }
    return compute


def _missing_fields(shape: dict, layout: dict) -> list[str]:
    unknown = _unknown_fields(shape, Workload, "workload.")
    unknown += _unknown_fields(layout, Parallelism, "workload.parallelism.")
    unknown += _unknown_fields(shape.get("moe") or {}, MixtureOfExperts, "workload.moe.")
    return unknown


def case_design(case: Case) -> tuple[dict[str, Any], str]:
    """(design document, note). Raises NotExpressible with every reason found."""
    if case.not_expressible:
        raise NotExpressible(case.not_expressible)
    shape = {key: value for key, value in case.model.items() if key != "source"}
    if case.moe_routing and shape.get("moe"):
        shape["moe"] = {**shape["moe"], "routing": case.moe_routing}
    layout = _layout(case)
    reasons = []
    try:
        stack, note = stack_for_today(case)
    except NotExpressible as exc:
        stack, note = None, ""
        reasons.append(str(exc))
    missing = _missing_fields(shape, layout)
    if missing:
        reasons.append(f"spec has no {', '.join(missing)}")
    if reasons:
        raise NotExpressible("; ".join(reasons))
    workload = {
        "kind": "training",
        **shape,
        "sequence_length": case.sequence_length,
        "global_batch_sequences": case.global_batch_sequences,
        "precision": case.precision,
        "parallelism": layout,
    }
    if stack is not None:
        workload["software_stack"] = stack
    system = SYSTEMS[case.system]
    doc = {
        "workload": workload,
        "compute": _compute(case),
        "fabric": {
            "technology": system.get("technology", "infiniband-ndr"),
            "nic_sku": system["nic_sku"],
            "nic_speed_gbps": system["nic_gbps"],
            "nics_per_node": system["nics"],
        },
    }
    return doc, note


def parsed_design(case: Case) -> tuple[DesignSpec, str]:
    """The validated spec of a case; a spec rejection is reported as not expressible."""
    doc, note = case_design(case)
    try:
        return parse_design(doc), note
    except SpecValidationError as exc:
        reasons = "; ".join(f"{e['path']}: {e['message']}" for e in exc.errors[:3])
        raise NotExpressible(f"spec rejects it: {reasons}") from exc
