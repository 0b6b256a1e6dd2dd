"""Compute entries: GPU SKUs, systems (nodes and racks) and cloud GPU-hour prices.

Bandwidth units are spelled out: `_gb_per_s` = gigabytes per second, `_tb_per_s` = terabytes
per second, `_gbit_per_s` = gigabits per second.
"""

from typing import Literal

from pydantic import Field

from models_engine.catalog.base import ID_PATTERN, CatalogEntry
from models_engine.catalog.measured import MeasuredKernels

PRECISIONS = ("bf16", "fp8", "fp4")


class GpuSku(CatalogEntry):
    """One accelerator SKU. Throughput figures are dense (no structured sparsity)."""

    vendor: str = Field(min_length=1, description="Vendor name, e.g. NVIDIA, AMD.")
    form_factor: Literal["sxm", "pcie", "superchip", "oam"] = Field(
        description="sxm / pcie card / Grace-Blackwell superchip (NVL72) / OCP OAM module."
    )
    architecture: str | None = Field(default=None, description="e.g. Ampere, Hopper, Blackwell.")
    bf16_dense_tflops: float = Field(gt=0, description="Peak dense BF16 tensor TFLOP/s.")
    fp8_dense_tflops: float | None = Field(
        default=None, gt=0, description="Peak dense FP8 TFLOP/s; null if no FP8 tensor path."
    )
    fp4_dense_tflops: float | None = Field(
        default=None, gt=0, description="Peak dense FP4 TFLOP/s; null if none."
    )
    hbm_gb: float = Field(gt=0, description="HBM capacity in GB (decimal, as published).")
    hbm_type: str | None = Field(default=None, description="HBM2e, HBM3, HBM3e.")
    hbm_bandwidth_tb_per_s: float = Field(gt=0, description="HBM bandwidth in TB/s.")
    nvlink_bandwidth_gb_per_s_per_gpu: float | None = Field(
        default=None,
        gt=0,
        description="Scale-up (NVLink / Infinity Fabric) bandwidth per GPU, GB/s, both directions.",
    )
    nvlink_links: int | None = Field(default=None, ge=1, description="Scale-up links per GPU.")
    nccl_nvlink_busbw_gb_per_s: float | None = Field(
        default=None,
        gt=0,
        description=(
            "App-level NCCL NVLink bandwidth per GPU, GB/s, one direction: links x NCCL per-link"
            " constant (performance.md [S12])."
        ),
    )
    nccl_allreduce_busbw_measured_gb_per_s: float | None = Field(
        default=None,
        gt=0,
        description="Best measured all-reduce busbw inside one scale-up domain, GB/s (nccl-tests).",
    )
    scale_up_domain_gpus: int = Field(
        ge=1, description="GPUs in one NVLink domain (8 for HGX/DGX, 72 for NVL72)."
    )
    scale_up_topology: Literal["switch", "mesh"] = Field(
        default="switch",
        description=(
            "How the scale-up links join the GPUs: 'switch' (NVSwitch: every GPU reaches the "
            "switch with all its links) or 'mesh' (point to point, each pair by its own "
            "links: MI300X Infinity Fabric)."
        ),
    )
    tdp_w: float = Field(gt=0, description="Thermal design power per GPU, W.")
    price_usd: float | None = Field(default=None, gt=0, description="Price per GPU, USD.")
    measured_efficiency: MeasuredKernels | None = Field(
        default=None,
        description=(
            "Kernel efficiencies measured on this GPU (catalog/measured.py); the performance "
            "engine uses them in place of its default profile. null = the default."
        ),
    )

    def peak_dense_tflops(self, precision: str) -> float | None:
        """Peak dense TFLOP/s for 'bf16', 'fp8' or 'fp4' (None where the GPU has no such path)."""
        key = precision.lower()
        if key not in PRECISIONS:
            raise ValueError(f"precision {precision!r} unknown; allowed: {', '.join(PRECISIONS)}")
        return getattr(self, f"{key}_dense_tflops")

    # Names used in the first brief; they are GB/s and TB/s (bytes), not gigabits.
    @property
    def hbm_bandwidth_tbps(self) -> float:
        """Alias of `hbm_bandwidth_tb_per_s` (TB/s)."""
        return self.hbm_bandwidth_tb_per_s

    @property
    def nvlink_bandwidth_gbps_per_gpu(self) -> float | None:
        """Alias of `nvlink_bandwidth_gb_per_s_per_gpu` (GB/s, both directions)."""
        return self.nvlink_bandwidth_gb_per_s_per_gpu

    @property
    def nccl_nvlink_busbw_gbps(self) -> float | None:
        """Alias of `nccl_nvlink_busbw_gb_per_s` (GB/s, one direction)."""
        return self.nccl_nvlink_busbw_gb_per_s


class SystemSku(CatalogEntry):
    """A node (DGX/HGX server) or a rack-scale system (GB200 NVL72)."""

    vendor: str = Field(min_length=1, description="Vendor name.")
    form: Literal["server", "rack"] = Field(description="A server (node) or a whole rack system.")
    gpu_id: str = Field(pattern=ID_PATTERN, description="Id of the GPU SKU (gpus catalog).")
    gpus_per_system: int = Field(ge=1, description="GPUs in one system.")
    power_max_kw: float | None = Field(
        default=None, gt=0, description="Maximum system power, kW (provisioning figure)."
    )
    psu_count: int | None = Field(default=None, ge=1, description="Power supplies installed.")
    psu_kw: float | None = Field(default=None, gt=0, description="Rating of one PSU, kW.")
    psu_redundancy: str | None = Field(default=None, description="e.g. '4+2', '5+1'.")
    scale_out_nic_id: str | None = Field(
        default=None, pattern=ID_PATTERN, description="Id of the compute-fabric NIC (nics)."
    )
    scale_out_nics_per_system: int | None = Field(
        default=None, ge=0, description="Compute-fabric NIC ports per system (one per rail)."
    )
    storage_nics_per_system: int | None = Field(
        default=None, ge=0, description="Storage / in-band NIC ports per system."
    )
    rack_units: int | None = Field(default=None, ge=1, description="Height of a server, U.")
    compute_trays: int | None = Field(default=None, ge=1, description="Rack systems: trays.")
    nvlink_switch_trays: int | None = Field(
        default=None, ge=1, description="Rack systems: NVLink switch trays."
    )
    liquid_cooling_required: bool = Field(description="True when the system needs liquid.")
    price_usd: float | None = Field(default=None, gt=0, description="Price per system, USD.")

    @property
    def power_max_kw_per_gpu(self) -> float | None:
        """Maximum system power divided by GPUs, kW."""
        if self.power_max_kw is None:
            return None
        return self.power_max_kw / self.gpus_per_system


CloudTerm = Literal[
    "on-demand",
    "reserved-1yr",
    "reserved-3yr",
    "reserved",
    "capacity-block",
    "market-contract-1yr",
]


class CloudPrice(CatalogEntry):
    """One cloud offer at one commitment term, as $/GPU-hour."""

    gpu_id: str = Field(pattern=ID_PATTERN, description="Id of the GPU SKU (gpus catalog).")
    provider: str = Field(min_length=1, description="Cloud or GPU-rental provider.")
    offer: str = Field(min_length=1, description="Instance type or offer name.")
    term: CloudTerm = Field(description="Commitment term of the price.")
    region: str | None = Field(default=None, description="Provider region, when stated.")
    usd_per_gpu_hour: float = Field(gt=0, description="Price per GPU-hour, USD.")
    usd_per_instance_hour: float | None = Field(
        default=None, gt=0, description="Price per instance-hour, USD, when stated."
    )
    gpus_per_instance: int | None = Field(default=None, ge=1, description="GPUs per instance.")
