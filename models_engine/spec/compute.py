"""`compute` section: accelerator, node shape and NVLink (scale-up) domain."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from ._base import CATALOG_ID_PATTERN, RuleViolations, SpecModel, section_field, spec_field

# Standard scale-up domain size per kind, used when the design does not give one.
STANDARD_DOMAIN_GPUS = {"pcie": 1, "hgx-nvswitch-8": 8, "nvl72": 72}
# GB200/GB300 NVL72 compute trays hold 4 GPUs (18 trays per rack).
NVL72_GPUS_PER_TRAY = 4


class CustomGpu(SpecModel):
    """An accelerator that is not in the catalog, described inline."""

    name: str = spec_field(
        ...,
        unit="text",
        description="Display name of the accelerator.",
        min_length=1,
        max_length=100,
    )
    bf16_dense_tflops: float = spec_field(
        ..., unit="TFLOP/s", description="Dense (non-sparse) BF16 tensor peak.", gt=0, le=1e6
    )
    fp8_dense_tflops: float | None = spec_field(
        None,
        unit="TFLOP/s",
        description="Dense FP8 tensor peak; null = no FP8 support.",
        gt=0,
        le=1e6,
    )
    hbm_gb: float = spec_field(
        ...,
        unit="GB",
        description="Device memory (HBM or GDDR), decimal gigabytes.",
        gt=0,
        le=100_000,
    )
    hbm_bandwidth_tbytes_per_s: float = spec_field(
        ...,
        unit="TB/s",
        description="Device memory bandwidth, terabytes per second.",
        gt=0,
        le=1000,
    )
    nvlink_gbytes_per_s_per_gpu: float = spec_field(
        0.0,
        unit="GB/s",
        description="Scale-up (NVLink-class) bandwidth per GPU, both directions summed; 0 = none.",
        ge=0,
        le=100_000,
    )
    tdp_w: float = spec_field(..., unit="W", description="Board power (TDP).", gt=0, le=20_000)
    price_usd: float = spec_field(
        ..., unit="USD", description="Purchase price of one accelerator.", ge=0, le=1e8
    )


class NvlinkDomain(SpecModel):
    """GPUs that share one scale-up interconnect (NVSwitch, NVL72 rack, or a PCIe switch).

    If `gpus` is omitted it is filled from the kind: pcie 1, hgx-nvswitch-8 8, nvl72 72.
    """

    kind: Literal["pcie", "hgx-nvswitch-8", "nvl72", "custom"] = spec_field(
        "hgx-nvswitch-8",
        unit="enum",
        description=(
            "pcie: no NVSwitch (gpus = 1, or 2 for bridged pairs); hgx-nvswitch-8: 8 GPUs on "
            "NVSwitch in one node; nvl72: 72 GPUs across 18 trays of one rack; custom: give gpus."
        ),
    )
    gpus: int = spec_field(
        8,
        unit="GPUs",
        description="GPUs in one domain (default by kind: pcie 1, hgx-nvswitch-8 8, nvl72 72).",
        ge=1,
        le=4096,
    )
    topology: Literal["switch", "mesh"] | None = spec_field(
        None,
        unit="enum",
        description=(
            "How the links join the domain's GPUs: 'switch' (NVSwitch: each GPU reaches every "
            "other with all its links, in-switch reduction where the switch has it) or 'mesh' "
            "(point to point, each pair by its own links: 4-GPU HGX boards, MI300X Infinity "
            "Fabric; a collective over fewer GPUs than the domain gets only their links). "
            "null = the catalog GPU's (mesh for MI300X, switch for NVIDIA GPUs)."
        ),
    )

    @model_validator(mode="after")
    def _check_topology(self) -> NvlinkDomain:
        if self.topology == "mesh" and self.kind in ("hgx-nvswitch-8", "nvl72"):
            issues = RuleViolations()
            issues.add(
                "topology",
                f"kind '{self.kind}' joins its GPUs through NVLink switches: use kind 'custom' "
                "for a point-to-point mesh",
                {"one_of": ["switch", None]},
            )
            issues.raise_if_any()
        return self

    @model_validator(mode="before")
    @classmethod
    def _fill_standard_size(cls, data: Any) -> Any:
        if isinstance(data, dict) and "gpus" not in data:
            kind = data.get("kind", "hgx-nvswitch-8")
            # Only a known kind string fills the size; anything else is reported by validation.
            size = STANDARD_DOMAIN_GPUS.get(kind) if isinstance(kind, str) else None
            if size is not None:
                return {**data, "gpus": size}
        return data


class Compute(SpecModel):
    """The accelerators: one catalog SKU (gpu_sku) or one inline custom_gpu, never both."""

    gpu_sku: str | None = spec_field(
        None,
        unit="catalog id",
        description="Catalog GPU id, e.g. 'h100-sxm-80gb'. Give this or custom_gpu.",
        pattern=CATALOG_ID_PATTERN,
    )
    custom_gpu: CustomGpu | None = section_field(
        None, description="Inline accelerator description. Give this or gpu_sku."
    )
    gpu_count: int = spec_field(
        ..., unit="GPUs", description="Total accelerators in the cluster.", ge=1, le=10_000_000
    )
    gpus_per_node: int = spec_field(
        8,
        unit="GPUs",
        description="Accelerators per node / compute tray (4 for an NVL72 tray; default 8).",
        ge=1,
        le=72,
    )
    nvlink_domain: NvlinkDomain = section_field(
        NvlinkDomain(), description="Scale-up domain shared by tensor-parallel groups."
    )
    cpu_cores_per_node: int = spec_field(
        112,
        unit="cores",
        description="Host CPU cores per node (DGX H100: 2 x 56).",
        ge=1,
        le=4096,
    )
    host_ram_gib_per_node: float = spec_field(
        2048.0, unit="GiB", description="Host memory per node.", gt=0, le=1_000_000
    )
    system_sku: str | None = spec_field(
        None,
        unit="catalog id",
        description="Catalog system (server / rack) id; null = derived from the GPU.",
        pattern=CATALOG_ID_PATTERN,
    )

    @model_validator(mode="before")
    @classmethod
    def _default_tray_size(cls, data: Any) -> Any:
        # An NVL72 rack is built from 4-GPU trays; 8 (the HGX default) would never be valid.
        if (
            isinstance(data, dict)
            and "gpus_per_node" not in data
            and isinstance(data.get("nvlink_domain"), dict)
            and data["nvlink_domain"].get("kind") == "nvl72"
        ):
            return {**data, "gpus_per_node": NVL72_GPUS_PER_TRAY}
        return data

    @model_validator(mode="after")
    def _check_shape(self) -> Compute:
        issues = RuleViolations()
        if (self.gpu_sku is None) == (self.custom_gpu is None):
            issues.add(
                "gpu_sku",
                "give exactly one of gpu_sku (a catalog id) or custom_gpu (an inline object)",
            )
        if self.gpu_count % self.gpus_per_node:
            issues.add(
                "gpu_count",
                f"gpu_count ({self.gpu_count}) must be a multiple of gpus_per_node "
                f"({self.gpus_per_node})",
                {"multiple_of": self.gpus_per_node},
            )
        self._check_domain(issues)
        issues.raise_if_any()
        return self

    def _check_domain(self, issues: RuleViolations) -> None:
        kind, size, per_node = self.nvlink_domain.kind, self.nvlink_domain.gpus, self.gpus_per_node
        standard = STANDARD_DOMAIN_GPUS.get(kind)
        if kind in ("hgx-nvswitch-8", "nvl72") and size != standard:
            issues.add(
                "nvlink_domain.gpus",
                f"a {kind} domain has {standard} GPUs (got {size}); use kind 'custom' otherwise",
                {"eq": standard},
            )
        if kind == "hgx-nvswitch-8" and per_node != 8:
            issues.add(
                "gpus_per_node",
                f"an hgx-nvswitch-8 domain needs gpus_per_node = 8 (got {per_node})",
                {"eq": 8},
            )
        if kind == "nvl72" and per_node != NVL72_GPUS_PER_TRAY:
            issues.add(
                "gpus_per_node",
                f"an nvl72 rack is built from {NVL72_GPUS_PER_TRAY}-GPU compute trays "
                f"(got gpus_per_node = {per_node})",
                {"eq": NVL72_GPUS_PER_TRAY},
            )
        if kind == "pcie" and per_node % size:
            issues.add(
                "nvlink_domain.gpus",
                f"a pcie domain ({size} GPUs) must divide gpus_per_node ({per_node})",
                {"one_of": [d for d in (1, 2, 4, 8) if per_node % d == 0]},
            )
        if kind == "custom" and per_node % size and size % per_node:
            issues.add(
                "nvlink_domain.gpus",
                f"a domain of {size} GPUs must divide gpus_per_node ({per_node}) or span whole "
                "nodes (a multiple of it)",
            )
        if size > per_node and self.gpu_count % size:
            issues.add(
                "gpu_count",
                f"a multi-node NVLink domain is bought whole: gpu_count ({self.gpu_count}) must "
                f"be a multiple of nvlink_domain.gpus ({size})",
                {"multiple_of": size},
            )
