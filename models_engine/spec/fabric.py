"""`fabric` section: scale-out (backend) network, plus frontend and storage networks."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import model_validator

from ._base import (
    CATALOG_ID_PATTERN,
    RuleViolations,
    SpecModel,
    section_field,
    spec_field,
    whole_number_choice,
)

Technology = Literal["infiniband-ndr", "infiniband-xdr", "roce-400g", "roce-800g"]
PortSpeedGbps = whole_number_choice(25, 50, 100, 200, 400, 800, 1600)

# Highest port speed each technology runs at, in Gb/s.
# A NIC port splits into a power-of-two number of planes (one SerDes group per plane).
PlaneCount = whole_number_choice(1, 2, 4, 8)

TECHNOLOGY_LINE_RATE_GBPS: dict[str, int] = {
    "infiniband-ndr": 400,
    "infiniband-xdr": 800,
    "roce-400g": 400,
    "roce-800g": 800,
}
# Parts filled in when the design names a technology but not its parts. The Field defaults
# below equal the "infiniband-ndr" row, the default technology.
TECHNOLOGY_DEFAULT_PARTS: dict[str, dict[str, Any]] = {
    "infiniband-ndr": {
        "switch_sku": "nvidia-qm9700",
        "nic_sku": "cx7-ndr-400g",
        "nic_speed_gbps": 400,
    },
    "infiniband-xdr": {
        "switch_sku": "nvidia-q3400",
        "nic_sku": "cx8-xdr-800g",
        "nic_speed_gbps": 800,
    },
    "roce-400g": {"switch_sku": "nvidia-sn5600", "nic_sku": "bf3-400g", "nic_speed_gbps": 400},
    # ConnectX-8 runs Ethernet as 2 x 400GbE only (its firmware release notes), so the 800G
    # RoCE default is two planes of 400G, as in the DGX B300 Spectrum-4 reference architecture.
    "roce-800g": {
        "switch_sku": "nvidia-sn5600",
        "nic_sku": "cx8-xdr-800g",
        "nic_speed_gbps": 800,
        "planes": 2,
    },
}


class Oversubscription(SpecModel):
    """Downlink : uplink bandwidth ratio per switch tier (1.0 = non-blocking)."""

    leaf: float = spec_field(
        1.0, unit="ratio", description="Leaf tier downlink/uplink ratio.", ge=1.0, le=64.0
    )
    spine: float = spec_field(
        1.0,
        unit="ratio",
        description="Spine tier downlink/uplink ratio (to the core in a 3-tier fat tree).",
        ge=1.0,
        le=64.0,
    )


class RoceSettings(SpecModel):
    """Lossless-Ethernet settings. Only meaningful for RoCE technologies; ignored for IB."""

    pfc_enabled: bool = spec_field(
        True, unit="boolean", description="Priority flow control (lossless class) enabled."
    )
    pfc_priority: int = spec_field(
        3, unit="priority (0-7)", description="802.1p priority of the RDMA class.", ge=0, le=7
    )
    ecn_enabled: bool = spec_field(
        True, unit="boolean", description="ECN marking (DCQCN congestion control) enabled."
    )
    ecn_kmin_kb: float = spec_field(
        150.0, unit="KB", description="Queue depth where ECN marking starts.", ge=0, le=100_000
    )
    ecn_kmax_kb: float = spec_field(
        1500.0,
        unit="KB",
        description="Queue depth where marking reaches its maximum.",
        ge=0,
        le=100_000,
    )

    @model_validator(mode="after")
    def _check_thresholds(self) -> RoceSettings:
        issues = RuleViolations()
        if self.ecn_kmin_kb > self.ecn_kmax_kb:
            issues.add(
                "ecn_kmin_kb",
                f"ecn_kmin_kb ({self.ecn_kmin_kb}) must not exceed ecn_kmax_kb "
                f"({self.ecn_kmax_kb})",
                {"le": self.ecn_kmax_kb},
            )
        issues.raise_if_any()
        return self


class AuxiliaryNetwork(SpecModel):
    """A frontend (in-band / user) or storage network."""

    mode: Literal["separate", "converged"] = spec_field(
        "separate",
        unit="enum",
        description=(
            "separate: own NICs and switches; converged: carried on the compute fabric "
            "(the NIC fields below are then ignored)."
        ),
    )
    nic_speed_gbps: PortSpeedGbps = spec_field(
        200, unit="Gb/s", description="Port speed of each NIC on this network."
    )
    nics_per_node: int = spec_field(
        1, unit="NIC ports", description="NIC ports per node on this network.", ge=0, le=16
    )

    @model_validator(mode="after")
    def _check_ports(self) -> AuxiliaryNetwork:
        issues = RuleViolations()
        if self.mode == "separate" and self.nics_per_node == 0:
            issues.add(
                "nics_per_node", "a separate network needs at least one NIC per node", {"ge": 1}
            )
        issues.raise_if_any()
        return self


class Fabric(SpecModel):
    """Scale-out fabric between nodes. Switch and NIC ids (and nic_speed_gbps) default to
    the standard parts of the chosen technology when omitted."""

    topology: Literal["rail-optimized", "leaf-spine", "fat-tree-3tier"] = spec_field(
        "rail-optimized", unit="enum", description="Switch topology of the compute fabric."
    )
    tiers: Literal["auto", 2, 3] = spec_field(
        "auto",
        unit="enum",
        description=(
            "Switch tiers of the compute fabric: 2 = leaf and spine, 3 = leaf, spine and core; "
            "the engine builds exactly that or rejects the design naming why. auto = the fewest "
            "switches (two tiers while the leaves fit under one spine layer; fat-tree-3tier "
            "topology: pods joined by a core)."
        ),
    )
    technology: Technology = spec_field(
        "infiniband-ndr", unit="enum", description="Link technology and generation."
    )
    switch_sku: str = spec_field(
        "nvidia-qm9700",
        unit="catalog id",
        description=(
            "Catalog switch id (default by technology: NDR nvidia-qm9700, XDR nvidia-q3400, "
            "RoCE nvidia-sn5600)."
        ),
        pattern=CATALOG_ID_PATTERN,
    )
    spine_switch_sku: str | None = spec_field(
        None,
        unit="catalog id",
        description=(
            "Catalog switch of the spine tier when it differs from the leaf (a larger box or a "
            "modular chassis); null = switch_sku. Its ports must carry the leaf uplinks' speed."
        ),
        pattern=CATALOG_ID_PATTERN,
    )
    core_switch_sku: str | None = spec_field(
        None,
        unit="catalog id",
        description=("Catalog switch of the core tier (three tiers); null = the spine's switch."),
        pattern=CATALOG_ID_PATTERN,
    )
    leaf_uplink_speed_gbps: PortSpeedGbps | None = spec_field(
        None,
        unit="Gb/s",
        description=(
            "Speed of the leaf uplinks (and every link above) when it differs from the node "
            "links: e.g. 400G NICs on broken-out 800G ports with 800G uplinks. null = the node "
            "link speed. The leaf's ports are split between the two speeds."
        ),
    )
    nic_sku: str = spec_field(
        "cx7-ndr-400g",
        unit="catalog id",
        description=(
            "Catalog NIC id (default by technology: NDR cx7-ndr-400g, XDR and RoCE-800 "
            "cx8-xdr-800g, RoCE-400 bf3-400g)."
        ),
        pattern=CATALOG_ID_PATTERN,
    )
    nics_per_node: int = spec_field(
        8,
        unit="NIC ports",
        description="Compute-fabric NIC ports per node (rail-optimized: one per rail).",
        ge=1,
        le=64,
    )
    nic_speed_gbps: PortSpeedGbps = spec_field(
        400,
        unit="Gb/s",
        description="Port speed of each compute NIC, at most the technology's line rate.",
    )
    oversubscription: Oversubscription = section_field(
        Oversubscription(), description="Per-tier oversubscription (1.0 = non-blocking)."
    )
    planes: PlaneCount = spec_field(
        1,
        unit="count",
        description=(
            "Independent fabric planes: 1, 2 (dual-plane) or 4 / 8 (multi-plane); each NIC "
            "port splits into one link per plane at nic_speed_gbps / planes (an 800G "
            "ConnectX-8 as 2 x 400G or 4 x 200G)."
        ),
    )
    roce: RoceSettings = section_field(
        RoceSettings(), description="RoCE lossless settings (ignored for InfiniBand)."
    )
    in_network_reduction: Literal["auto", "off"] = spec_field(
        "off",
        unit="enum",
        description=(
            "InfiniBand SHARP reductions in the scale-out switches (NCCL CollNet): off = never "
            "(NCCL's own default); auto = used where the switch supports SHARP and the fabric is "
            "rail-optimized, as when the job sets NCCL_COLLNET_ENABLE=1 with the SHARP plugin."
        ),
    )
    nvlink_switch_sku: str | None = spec_field(
        None,
        unit="catalog id",
        description=(
            "Catalog NVLink switch the scale-up domain is built from (nvswitch-gen3, "
            "nvlink5-switch-tray); it decides in-switch all-reduce (NVLS). null = the catalog "
            "GPU's own switch; a custom GPU gets NVLS only when this names a switch that has it."
        ),
        pattern=CATALOG_ID_PATTERN,
    )
    frontend_network: AuxiliaryNetwork = section_field(
        AuxiliaryNetwork(mode="separate", nic_speed_gbps=200, nics_per_node=1),
        description="In-band management and user-facing network.",
    )
    storage_network: AuxiliaryNetwork = section_field(
        AuxiliaryNetwork(mode="separate", nic_speed_gbps=400, nics_per_node=2),
        description="Network to the shared storage tiers.",
    )

    @model_validator(mode="before")
    @classmethod
    def _fill_technology_parts(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        technology = data.get("technology", "infiniband-ndr")
        parts = TECHNOLOGY_DEFAULT_PARTS.get(technology) if isinstance(technology, str) else None
        if parts is None:
            return data
        return {**{k: v for k, v in parts.items() if k not in data}, **data}

    @model_validator(mode="after")
    def _check_speed(self) -> Fabric:
        issues = RuleViolations()
        line_rate = TECHNOLOGY_LINE_RATE_GBPS[self.technology]
        if self.nic_speed_gbps > line_rate:
            issues.add(
                "nic_speed_gbps",
                f"{self.technology} runs at most {line_rate} Gb/s per port "
                f"(got {self.nic_speed_gbps})",
                {"le": line_rate},
            )
        if self.nic_speed_gbps % self.planes:
            issues.add(
                "planes",
                f"{self.nic_speed_gbps} Gb/s does not split evenly into {self.planes} planes",
                {"divides": self.nic_speed_gbps},
            )
        if self.tiers == 2 and self.topology == "fat-tree-3tier":
            issues.add(
                "tiers",
                "topology fat-tree-3tier builds three tiers; choose tiers 3 or auto, or a "
                "rail-optimized / leaf-spine topology for two tiers",
                {"one_of": ["auto", 3]},
            )
        issues.raise_if_any()
        return self
