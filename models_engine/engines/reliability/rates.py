"""Failure rate per unit of each component class: catalog defaults, overridable per design.

A rate is failures per unit-year. Defaults come from `catalog.failure_rates`; where the catalog
holds no usable figure the class gets an explicit engine constant with its source, or zero
with a note (no published figure: PDU) until a design overrides it.

Where a fleet measured a component on a GPU generation, that measurement replaces the textbook
figure (`MEASURED_BY_ARCHITECTURE`, `MEASURED_HBM`); other generations fall back to the
textbook figures. Per-node classes with a single sourced figure (SSD, host, software) use it for
every generation (`NODE_LEVEL_DEFAULTS`).

Override values (`rate_overrides={class: value}`): a catalog failure-rate id, a number
(failures per unit-year), or a dict with one of afr_fraction_per_year, mtbf_hours, mtbe_hours,
failures_per_1000_node_days, failures_per_unit_year (and optionally "source").
The extra class "node" replaces the node-internal classes by one measured per-node rate
(e.g. "node-rsc1-a100"), spread over them in proportion to the component model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

HOURS_PER_YEAR = 8760.0
DAYS_PER_YEAR = 365.0

# The catalog's only optics figure (optics-transceiver, 50,000 h) is marked "UNCERTAIN, not a
# test anchor" and would put ~1,800 optics failures into a 16K-GPU, 54-day run against 35
# network interruptions observed (Llama 3). Engine default: the vendor laser figure quoted
# beside it, FIT 50-200 -> MTBF 0.5-2 M h per transceiver, geometric middle 1 M h
# (reliability.md "Optics / transceivers", [S]/[U]).
OPTICS_VENDOR_MTBF_H = 1_000_000.0

GPU_MODULE_ID = "gpu-textbook"
HBM_BY_MEMORY = {"HBM2e": "hbm-a100", "HBM2": "hbm-a100", "HBM3": "hbm-h100", "HBM3e": "hbm-h100"}

# Fleet-measured rates per GPU architecture (catalog ids). Hopper: Meta's Llama 3 405B run,
# 16,384 H100 in 2,048 nodes, 54 days, 419 unexpected interruptions by root cause (Dubey et al.
# 2024, "The Llama 3 Herd of Models", Table 5, 2024-07; each rate = category count / exposure,
# derivation in the catalog entry). The GPU figure there is the die alone (HBM3 is its own
# category), so no HBM share is carved out of it. No comparable per-component fleet breakdown
# was found for A100 (Kokolis et al. 2024 give a node total only), Blackwell or MI300X: those
# use the textbook figures.
MEASURED_BY_ARCHITECTURE: dict[str, dict[str, str]] = {
    "Hopper": {
        "gpu": "gpu-h100-llama3",
        "nic": "nic-h100-llama3",
        "pcie_switch": "pcie-switch-h100-llama3",
        "host_dram": "host-dram-h100-llama3",
    },
}
# Interrupting HBM faults measured per memory type (same run); HBM3e (H200, Blackwell) unmeasured.
MEASURED_HBM = {"HBM3": "hbm3-h100-llama3"}
# Per-node classes with one sourced figure, not tied to a GPU generation: the Llama 3 run's SSD,
# host (CPU, chassis, PSU, unplanned host maintenance) and software/firmware (software bugs,
# NCCL watchdog, dependencies) categories per node-day (Dubey et al. 2024, Table 5).
NODE_LEVEL_DEFAULTS = {"ssd": "ssd-llama3", "host": "host-llama3", "software": "software-llama3"}


@dataclass(frozen=True)
class ComponentClass:
    key: str
    label: str
    unit: str
    node_internal: bool  # part of a node (the "node" override replaces these)


CLASSES: tuple[ComponentClass, ...] = (
    ComponentClass("gpu", "GPU (die, SRAM, GSP, thermal)", "per GPU", True),
    ComponentClass("hbm", "GPU memory (HBM)", "per GPU", True),
    ComponentClass("host_dram", "host memory (DIMM)", "per DIMM", True),
    ComponentClass("pcie_switch", "PCIe switch / IO board", "per PCIe switch", True),
    ComponentClass("nic", "compute NIC", "per NIC", True),
    ComponentClass("optics", "optics / cables", "per transceiver", True),
    ComponentClass("psu", "power supply", "per PSU", True),
    ComponentClass("ssd", "local SSD", "per node", True),
    ComponentClass("host", "host (CPU, chassis, PSU, unplanned maintenance)", "per node", True),
    ComponentClass("software", "software / driver", "per node", False),
    ComponentClass("switch", "network switch", "per switch", False),
    ComponentClass("pdu", "rack PDU / power feed", "per rack", False),
)
CLASS_KEYS = (*(c.key for c in CLASSES), "node")
NO_PUBLISHED_DEFAULT = {
    "pdu": "no PDU failure rate in the references; override to include it",
}


@dataclass(frozen=True)
class Rate:
    key: str
    failures_per_unit_year: float
    source: str
    catalog_id: str | None
    note: str | None = None

    @property
    def mtbf_hours(self) -> float | None:
        if self.failures_per_unit_year <= 0:
            return None
        return HOURS_PER_YEAR / self.failures_per_unit_year

    def as_dict(self) -> dict:
        return {
            "component": self.key,
            "failures_per_unit_year": self.failures_per_unit_year,
            "mtbf_hours": self.mtbf_hours,
            "source": self.source,
            "catalog_id": self.catalog_id,
            "note": self.note,
        }


def _entry_rate(catalog, entry_id: str, key: str, note: str | None = None) -> Rate:
    entry = catalog.get("failure_rates", entry_id)
    titles = "; ".join(source.title for source in entry.sources)
    return Rate(key, entry.failures_per_unit_year(), titles, entry.id, note or entry.notes)


def hbm_default_id(memory_type: str | None) -> str:
    return HBM_BY_MEMORY.get(memory_type or "", "hbm-textbook")


def default_rates(
    catalog, memory_type: str | None, architecture: str | None = None
) -> dict[str, Rate]:
    """The default rate of every class for a GPU of `architecture` (e.g. "Hopper") with
    `memory_type` (e.g. "HBM3"): fleet-measured where a measurement exists, else textbook."""
    measured = MEASURED_BY_ARCHITECTURE.get(architecture or "", {})
    if "gpu" in measured:
        gpu = _entry_rate(catalog, measured["gpu"], "gpu")
        hbm_id = MEASURED_HBM.get(memory_type or "", hbm_default_id(memory_type))
        hbm = _entry_rate(catalog, hbm_id, "hbm")
    else:
        gpu, hbm = _textbook_gpu_and_hbm(catalog, memory_type)
    rates = {
        "gpu": gpu,
        "hbm": hbm,
        "host_dram": _entry_rate(catalog, measured.get("host_dram", "host-dram-dimm"), "host_dram"),
        "pcie_switch": _entry_rate(
            catalog, measured.get("pcie_switch", "pcie-switch-textbook"), "pcie_switch"
        ),
        "nic": _entry_rate(catalog, measured.get("nic", "nic-textbook"), "nic"),
        "optics": Rate(
            "optics",
            HOURS_PER_YEAR / OPTICS_VENDOR_MTBF_H,
            "vendor laser FIT 50-200 (MTBF 0.5-2 M h), reliability.md Optics [S][U]",
            None,
            "catalog optics-transceiver (50,000 h, 'not a test anchor') is available as an "
            "override",
        ),
        "psu": _entry_rate(catalog, "psu-textbook", "psu"),
        "switch": _entry_rate(catalog, "switch-datacenter", "switch"),
    }
    for key, entry_id in NODE_LEVEL_DEFAULTS.items():
        rates[key] = _entry_rate(catalog, entry_id, key)
    for key, note in NO_PUBLISHED_DEFAULT.items():
        rates[key] = Rate(key, 0.0, "none published", None, note)
    return rates


def _textbook_gpu_and_hbm(catalog, memory_type: str | None) -> tuple[Rate, Rate]:
    module = _entry_rate(catalog, GPU_MODULE_ID, "gpu")
    hbm = _entry_rate(catalog, hbm_default_id(memory_type), "hbm")
    hbm_share = min(hbm.failures_per_unit_year, module.failures_per_unit_year)
    # The textbook GPU MTTF counts fleet failures attributed to the GPU (Meta 2024 files HBM3
    # errors under "GPU"), so it already holds memory: the generation's HBM rate is carved out
    # of it rather than added, and the GPU module total stays the catalog figure.
    gpu = Rate(
        "gpu",
        module.failures_per_unit_year - hbm_share,
        f"{module.source} (module total) less the HBM share ({hbm.catalog_id})",
        module.catalog_id,
        f"GPU module MTTF {module.mtbf_hours:,.0f} h = die/SRAM/GSP + HBM; HBM shown apart",
    )
    return gpu, Rate("hbm", hbm_share, hbm.source, hbm.catalog_id, hbm.note)


def _override_rate(catalog, key: str, value: Any) -> Rate:
    if isinstance(value, str):
        return _entry_rate(catalog, value, key)
    if isinstance(value, int | float) and not isinstance(value, bool):
        return Rate(key, float(value), "design override", None)
    if isinstance(value, Mapping):
        source = str(value.get("source", "design override"))
        if value.get("failures_per_unit_year") is not None:
            per_year = float(value["failures_per_unit_year"])
        elif value.get("failures_per_1000_node_days") is not None:
            per_year = float(value["failures_per_1000_node_days"]) * DAYS_PER_YEAR / 1000.0
        elif value.get("mtbf_hours") or value.get("mtbe_hours"):
            per_year = HOURS_PER_YEAR / float(value.get("mtbf_hours") or value["mtbe_hours"])
        elif value.get("afr_fraction_per_year") is not None:
            per_year = float(value["afr_fraction_per_year"])
        else:
            raise ValueError(
                f"rate_overrides[{key!r}] needs one of failures_per_unit_year, "
                "failures_per_1000_node_days, mtbf_hours, mtbe_hours, afr_fraction_per_year"
            )
        if per_year < 0:
            raise ValueError(f"rate_overrides[{key!r}] must not be negative")
        return Rate(key, per_year, source, None)
    raise ValueError(
        f"rate_overrides[{key!r}] must be a catalog id, a number (failures per unit-year) or "
        "a dict of rate fields"
    )


def resolve_rates(
    catalog,
    memory_type: str | None,
    overrides: Mapping[str, Any] | None,
    architecture: str | None = None,
) -> tuple[dict[str, Rate], Rate | None]:
    """(rate per class, measured node rate or None) after the design's overrides."""
    rates = default_rates(catalog, memory_type, architecture)
    node_rate = None
    for key, value in (overrides or {}).items():
        if key not in CLASS_KEYS:
            raise ValueError(
                f"rate_overrides has unknown component {key!r}; allowed: {', '.join(CLASS_KEYS)}"
            )
        rate = _override_rate(catalog, key, value)
        if key == "node":
            node_rate = rate
        else:
            rates[key] = rate
    return rates, node_rate
