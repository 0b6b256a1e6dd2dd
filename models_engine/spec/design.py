"""`DesignSpec`: the whole design document and the rules that span sections."""

from __future__ import annotations

from pydantic import model_validator

from ._base import RuleViolations, SpecModel, section_field, spec_field, whole_number_choice
from .compute import Compute
from .economics import Economics
from .fabric import Fabric
from .facility import Facility
from .network import Network
from .physical import Physical
from .regions import Regions
from .security import Security
from .storage import Storage
from .workload import Parallelism, Workload

SPEC_VERSION = 1
SpecVersion = whole_number_choice(SPEC_VERSION)
# Tolerance when checking that a site's share of GPUs is a whole number of domains.
_WHOLE_UNITS_TOLERANCE = 1e-6


class DesignSpec(SpecModel):
    """A Cluster Studio design: one AI cluster (workload, compute, fabric, storage, facility,
    regions, security controls and economics). Units are in field names or descriptions:
    _gib binary gigabytes, _gb/_tb decimal bytes, _gbps gigabits/s, _gbytes_per_s
    gigabytes/s, _kw kilowatts, _usd dollars, _ms/_s/_min/_h time."""

    spec_version: SpecVersion = spec_field(
        SPEC_VERSION,
        unit="version",
        description="Schema version of this document (older versions are migrated on load).",
    )
    name: str = spec_field(
        "Untitled design",
        unit="text",
        description="Design name.",
        min_length=1,
        max_length=200,
    )
    description: str = spec_field(
        "", unit="text", description="What this design is and why.", max_length=10_000
    )
    workload: Workload = section_field(..., description="Model and training / serving run.")
    compute: Compute = section_field(..., description="Accelerators and node shape.")
    fabric: Fabric = section_field(Fabric(), description="Scale-out, frontend, storage networks.")
    storage: Storage = section_field(Storage(), description="Storage tiers and checkpoints.")
    facility: Facility = section_field(Facility(), description="Cooling, power, efficiency.")
    regions: Regions = section_field(Regions(), description="Sites, WAN links, datasets.")
    security: Security = section_field(Security(), description="Security controls in place.")
    economics: Economics = section_field(Economics(), description="Ownership and prices.")
    network: Network = section_field(Network(), description="Addressing, routing, tenants.")
    physical: Physical = section_field(
        Physical(), description="Rack height, rows, halls and cable types of the physical plan."
    )

    @model_validator(mode="after")
    def _check_across_sections(self) -> DesignSpec:
        issues = RuleViolations()
        parallelism = self.workload.parallelism
        if isinstance(parallelism, Parallelism):
            self._check_layout_fits_cluster(parallelism, issues)
        custom = self.compute.custom_gpu
        if (
            self.workload.precision == "fp8"
            and custom is not None
            and (custom.fp8_dense_tflops is None)
        ):
            issues.add(
                "workload.precision",
                "fp8 needs compute.custom_gpu.fp8_dense_tflops (this GPU has no FP8 peak)",
                {"one_of": ["bf16", "fp16"]},
            )
        self._check_site_shares(issues)
        issues.raise_if_any()
        return self

    def _check_layout_fits_cluster(self, par: Parallelism, issues: RuleViolations) -> None:
        gpus = self.compute.gpu_count
        product = par.tp * par.pp * par.dp * par.cp
        if product != gpus:
            model_parallel = par.tp * par.pp * par.cp
            hint = {"dp": gpus // model_parallel} if gpus % model_parallel == 0 else None
            fix = (
                f"set workload.parallelism.dp to {hint['dp']}"
                if hint
                else f"choose tp, pp and cp whose product divides {gpus}"
            )
            issues.add(
                "workload.parallelism",
                f"tp x pp x dp x cp = {par.tp} x {par.pp} x {par.dp} x {par.cp} = {product} "
                f"must equal compute.gpu_count ({gpus}): {fix}, or set workload.parallelism "
                'to "auto" to let the engine choose the layout',
                hint,
            )
        domain = self.compute.nvlink_domain.gpus
        if self.compute.nvlink_domain.kind == "pcie":
            # Without NVLink the GPUs of one node still reach each other over PCIe (vLLM's
            # TP=2/4 on PCIe servers); the collectives model charges PCIe bandwidth for it.
            domain = max(domain, self.compute.gpus_per_node)
        if par.tp > domain:
            issues.add(
                "workload.parallelism.tp",
                f"tp ({par.tp}) must fit in one NVLink domain, or in one node over PCIe "
                f"(here {domain} GPUs)",
                {"le": domain},
            )

    def _check_site_shares(self, issues: RuleViolations) -> None:
        """Each site gets whole scale-up units (nodes, or whole NVL72 racks)."""
        compute = self.compute
        unit = max(compute.gpus_per_node, compute.nvlink_domain.gpus)
        for index, site in enumerate(self.regions.sites):
            site_gpus = site.gpu_share * compute.gpu_count
            units = site_gpus / unit
            if abs(units - round(units)) > _WHOLE_UNITS_TOLERANCE * max(1.0, units):
                issues.add(
                    f"regions.sites.{index}.gpu_share",
                    f"gives {site_gpus:.6g} GPUs; each site must hold whole units of {unit} "
                    f"GPUs (of compute.gpu_count = {compute.gpu_count})",
                    {"multiple_of": round(unit / compute.gpu_count, 12)},
                )
