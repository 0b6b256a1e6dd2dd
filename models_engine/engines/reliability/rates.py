"""Failure rate per unit of each component class, by GPU generation; overridable per design.

A rate is failures per unit-year, split into the failures that stop a synchronous job
(`failures_per_unit_year`) and those that do not (`degrading_per_unit_year`: HBM errors that
row remapping or containment absorb). Every rate says how it relates to the design's GPU
generation (`basis`): measured on that generation, derived from a published comparison of two
generations, carried from the nearest measured generation, or textbook where nothing is
published.

Per class:
- GPU die (SRAM, GSP, thermal, SDC; HBM apart): measured on Hopper (Llama 3 405B run, Dubey et
  al. 2024, Table 5). Ampere = Hopper x the A100/H100 ratio of GPU hardware errors per GPU-hour
  measured on one site (Delta, Cui et al. 2025); Blackwell carries the Hopper figure (no
  per-component Blackwell measurement is published; the B200 fleet figure of Lablup 2026 is a
  held-out check in tests/engine/test_reliability_published_runs.py).
- HBM: interrupting faults scale with capacity (Cui et al. 2025: about three quarters of the
  H100-vs-A100 per-GPU memory-error regression is the 2.4x larger memory): the per-GB rate
  measured on HBM3 (Llama 3: 72 in 884,736 H100-days of 80 GB) x the GPU's GB x a technology
  factor (HBM2e per-GB error MTBE 11.3 M h vs HBM3 8.5 M h, Cui et al. 2025 v4; HBM3e carried at
  HBM3's per-GB rate). Memory errors beyond those (Cui et al.'s per-GB error MTBE) are counted
  as degradations, never as interruptions.
- NIC, PCIe switch, host DIMM, local SSD, host, software: measured on the Llama 3 fleet; the parts
  are not GPU-specific, so every generation uses them (basis "platform").
- GPUs of other vendors / architectures: textbook module MTTF with the HBM carved out of it
  (the capacity-scaled HBM rate above when the memory type is a known HBM, else textbook).

Override values (`rate_overrides={class: value}`): a catalog failure-rate id, a number
(failures per unit-year), or a dict with one of afr_fraction_per_year, mtbf_hours, mtbe_hours,
failures_per_1000_node_days, failures_per_unit_year (and optionally "source").
The extra class "node" replaces the node-internal classes AND software by one measured
per-node rate (e.g. "node-rsc1-a100"): a fleet's measured node rate counts every interruption
it attributes to a node, software included, so software is not added on top of it."""

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
TEXTBOOK_HBM_BY_MEMORY = {"HBM2e": "hbm-a100", "HBM2": "hbm-a100", "HBM3": "hbm-h100"}

# Basis labels: how a default rate relates to the design's GPU generation.
MEASURED = "measured"
DERIVED = "derived"
CARRIED = "carried"
PLATFORM = "platform"
TEXTBOOK = "textbook"

HOPPER_DIE_ID = "gpu-h100-llama3"
HOPPER_HBM3_ID = "hbm3-h100-llama3"
# H100 SXM memory in the Llama 3 fleet, GB (catalog h100-sxm-80gb hbm_gb).
HOPPER_HBM3_GB = 80.0

# Die rate relative to Hopper's measured one, per architecture (with how it was obtained).
# Ampere 1.85 [D]: GPU hardware errors (GSP 119, PMU SPI 122, NVLink 74, MMU 31) on one site,
# Delta (Cui et al., "Story of Two GPUs", SC25 / arXiv 2503.11901 v4, component table):
# A100 3,857 + 77 + 1,922 + 8,863 = 14,719 in 9.6 M GPU-h = 1.53e-3 /GPU-h; H100 3 + 0 + 0 +
# 1,737 = 1,740 in 2.1 M GPU-h = 8.3e-4 /GPU-h; ratio 1.85. Error episodes are not job
# interruptions; only their ratio is used, applied to Hopper's measured interruption rate.
DIE_FACTOR_VS_HOPPER: dict[str, tuple[float, str, str]] = {
    "Hopper": (1.0, MEASURED, "Llama 3 405B fleet, Dubey et al. 2024 Table 5"),
    "Ampere": (
        1.85,
        DERIVED,
        "Hopper (Llama 3) x 1.85: A100/H100 GPU hardware errors per GPU-hour on Delta "
        "(Cui et al. 2025, arXiv 2503.11901 v4)",
    ),
    "Blackwell": (
        1.0,
        CARRIED,
        "Hopper (Llama 3) carried: no per-component Blackwell fleet measurement published",
    ),
    "Blackwell Ultra": (
        1.0,
        CARRIED,
        "Hopper (Llama 3) carried: no per-component Blackwell fleet measurement published",
    ),
}
# HBM uncorrectable-error MTBE per GB (Cui et al. 2025 v4): HBM2e 283,271 h x 40 GB = 11.3 M
# GB-h (A100 40 GB), HBM3 88,768 h x 96 GB = 8.5 M GB-h (GH200's H100 96 GB). HBM3e: no
# published figure, HBM3's carried (assumption).
HBM_ERROR_MTBE_GB_HOURS = {
    "HBM2": 11.3e6,
    "HBM2e": 11.3e6,
    "HBM3": 8.5e6,
    "HBM3e": 8.5e6,
}
HBM_MEASURED_TYPE = "HBM3"

# Parts that are not GPU-specific, measured on the Llama 3 fleet (Dubey et al. 2024 Table 5;
# derivations in the catalog entries): used for every generation.
PLATFORM_IDS = {
    "nic": "nic-h100-llama3",
    "pcie_switch": "pcie-switch-h100-llama3",
    "host_dram": "host-dram-h100-llama3",
    "ssd": "ssd-llama3",
    "host": "host-llama3",
    "software": "software-llama3",
}


@dataclass(frozen=True)
class GpuTraits:
    """What selects a GPU's default rates: architecture, memory type and capacity."""

    architecture: str | None
    hbm_type: str | None
    hbm_gb: float | None


@dataclass(frozen=True)
class ComponentClass:
    key: str
    label: str
    unit: str
    node_internal: bool  # part of a node (a node failure needing repair)


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
    ComponentClass("software", "software / driver (per GPU rank)", "per GPU", False),
    ComponentClass("switch", "network switch", "per switch", False),
    ComponentClass("pdu", "rack PDU / power feed", "per rack", False),
)
CLASS_KEYS = (*(c.key for c in CLASSES), "node")
# Classes a measured per-node rate replaces: the node's parts and the software running on it.
NODE_RATE_REPLACES = (*(c.key for c in CLASSES if c.node_internal), "software")
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
    basis: str = "design override"
    degrading_per_unit_year: float = 0.0

    @property
    def mtbf_hours(self) -> float | None:
        if self.failures_per_unit_year <= 0:
            return None
        return HOURS_PER_YEAR / self.failures_per_unit_year

    def as_dict(self) -> dict:
        return {
            "component": self.key,
            "failures_per_unit_year": self.failures_per_unit_year,
            "degrading_per_unit_year": self.degrading_per_unit_year,
            "mtbf_hours": self.mtbf_hours,
            "basis": self.basis,
            "source": self.source,
            "catalog_id": self.catalog_id,
            "note": self.note,
        }


def _entry_rate(catalog, entry_id: str, key: str, basis: str, note: str | None = None) -> Rate:
    entry = catalog.get("failure_rates", entry_id)
    titles = "; ".join(source.title for source in entry.sources)
    return Rate(key, entry.failures_per_unit_year(), titles, entry.id, note or entry.notes, basis)


def default_rates(catalog, gpu: GpuTraits) -> dict[str, Rate]:
    """The default rate of every class for `gpu`: measured on its generation where a
    measurement exists, derived or carried from Hopper for Ampere / Blackwell, textbook
    otherwise (the `basis` of each rate says which)."""
    if gpu.architecture in DIE_FACTOR_VS_HOPPER:
        gpu_rate = _die_rate(catalog, gpu.architecture)
        hbm = _hbm_rate(catalog, gpu)
    else:
        gpu_rate, hbm = _textbook_gpu_and_hbm(catalog, gpu)
    rates = {"gpu": gpu_rate, "hbm": hbm}
    for key, entry_id in PLATFORM_IDS.items():
        rates[key] = _entry_rate(catalog, entry_id, key, PLATFORM)
    rates["optics"] = Rate(
        "optics",
        HOURS_PER_YEAR / OPTICS_VENDOR_MTBF_H,
        "vendor laser FIT 50-200 (MTBF 0.5-2 M h), reliability.md Optics [S][U]",
        None,
        "catalog optics-transceiver (50,000 h, 'not a test anchor') is available as an override",
        TEXTBOOK,
    )
    rates["psu"] = _entry_rate(catalog, "psu-textbook", "psu", TEXTBOOK)
    rates["switch"] = _entry_rate(catalog, "switch-datacenter", "switch", MEASURED)
    for key, note in NO_PUBLISHED_DEFAULT.items():
        rates[key] = Rate(key, 0.0, "none published", None, note, "none published")
    return rates


def _die_rate(catalog, architecture: str) -> Rate:
    factor, basis, source = DIE_FACTOR_VS_HOPPER[architecture]
    hopper = _entry_rate(catalog, HOPPER_DIE_ID, "gpu", basis)
    return Rate(
        "gpu",
        hopper.failures_per_unit_year * factor,
        source,
        hopper.catalog_id,
        f"{architecture}: {factor:g} x the Hopper die rate ({hopper.mtbf_hours:,.0f} h)",
        basis,
    )


def _hbm_rate(catalog, gpu: GpuTraits) -> Rate:
    """Interrupting HBM faults per GPU-year: the HBM3 per-GB rate measured on Llama 3 x the
    GPU's GB x the memory type's per-GB error ratio to HBM3; the rest of the errors (Cui et
    al.'s per-GB error MTBE) are degradations."""
    measured = _entry_rate(catalog, HOPPER_HBM3_ID, "hbm", MEASURED)
    memory = gpu.hbm_type if gpu.hbm_type in HBM_ERROR_MTBE_GB_HOURS else HBM_MEASURED_TYPE
    gb = gpu.hbm_gb or HOPPER_HBM3_GB
    tech = HBM_ERROR_MTBE_GB_HOURS[HBM_MEASURED_TYPE] / HBM_ERROR_MTBE_GB_HOURS[memory]
    per_gb = measured.failures_per_unit_year / HOPPER_HBM3_GB
    interrupting = per_gb * gb * tech
    errors = HOURS_PER_YEAR * gb / HBM_ERROR_MTBE_GB_HOURS[memory]
    basis = MEASURED if (memory == HBM_MEASURED_TYPE and gb == HOPPER_HBM3_GB) else DERIVED
    carried = "; HBM3e at HBM3's per-GB rate (no published HBM3e figure)"
    return Rate(
        "hbm",
        interrupting,
        f"{measured.source} (per GB, x {gb:g} GB x {tech:.2f} for {memory}); "
        "Cui et al. 2025 per-GB error MTBE (arXiv 2503.11901 v4)",
        measured.catalog_id,
        f"{memory} {gb:g} GB: interrupting faults scale with capacity; "
        f"{max(0.0, errors - interrupting):.3f} more errors per GPU-year are absorbed "
        "(row remap / containment) and counted as degradations"
        + (carried if memory == "HBM3e" else ""),
        basis,
        max(0.0, errors - interrupting),
    )


def _textbook_gpu_and_hbm(catalog, gpu: GpuTraits) -> tuple[Rate, Rate]:
    module = _entry_rate(catalog, GPU_MODULE_ID, "gpu", TEXTBOOK)
    if gpu.hbm_type in HBM_ERROR_MTBE_GB_HOURS:
        # HBM stacks are the same parts whatever GPU carries them: the capacity-scaled rate.
        hbm = _hbm_rate(catalog, gpu)
    else:
        hbm_id = TEXTBOOK_HBM_BY_MEMORY.get(gpu.hbm_type or "", "hbm-textbook")
        hbm = _entry_rate(catalog, hbm_id, "hbm", TEXTBOOK)
    hbm_share = min(hbm.failures_per_unit_year, module.failures_per_unit_year)
    # The textbook GPU MTTF counts fleet failures attributed to the GPU (Meta 2024 files HBM3
    # errors under "GPU"), so it already holds memory: the HBM rate is carved out of it rather
    # than added, and the GPU module total stays the catalog figure.
    gpu = Rate(
        "gpu",
        module.failures_per_unit_year - hbm_share,
        f"{module.source} (module total) less the HBM share ({hbm.catalog_id})",
        module.catalog_id,
        f"GPU module MTTF {module.mtbf_hours:,.0f} h = die/SRAM/GSP + HBM; HBM shown apart "
        "(no fleet measurement for this architecture)",
        TEXTBOOK,
    )
    return gpu, Rate(
        "hbm",
        hbm_share,
        hbm.source,
        hbm.catalog_id,
        hbm.note,
        hbm.basis,
        hbm.degrading_per_unit_year,
    )


def _override_rate(catalog, key: str, value: Any) -> Rate:
    if isinstance(value, str):
        return _entry_rate(catalog, value, key, "design override (catalog entry)")
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
    catalog, gpu: GpuTraits, overrides: Mapping[str, Any] | None
) -> tuple[dict[str, Rate], Rate | None]:
    """(rate per class, measured node rate or None) after the design's overrides."""
    rates = default_rates(catalog, gpu)
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
