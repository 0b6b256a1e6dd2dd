"""Network entries: switches (scale-out and NVLink), NICs, optics and cables.

`_gbit_per_s` = gigabits per second (line rates), `_gb_per_s` = gigabytes per second.
Port speeds are per direction, as line rates are quoted.
"""

from typing import Literal

from pydantic import BaseModel, Field, model_validator

from models_engine.catalog.base import FROZEN, CatalogEntry


class PortBreakout(BaseModel):
    """One more way to split every native port (e.g. 64 x 800G -> 256 x 200G)."""

    model_config = FROZEN

    ports: int = Field(ge=1, description="Ports when every native port is split this way.")
    speed_gbit_per_s: float = Field(gt=0, description="Speed of one split port, Gb/s.")


class SwitchSku(CatalogEntry):
    """A switch (box, tray or chip)."""

    vendor: str = Field(min_length=1, description="Vendor name.")
    fabric: Literal["infiniband", "ethernet", "nvlink"] = Field(description="Protocol.")
    form: Literal["switch", "tray", "chip", "router"] = Field(
        description=(
            "Rack switch, rack-system switch tray, a chip on a GPU baseboard, or a WAN / "
            "data-centre-interconnect router (its ports take coherent pluggable optics)."
        )
    )
    radix_ports: int = Field(ge=1, description="Ports at the native speed (the radix R).")
    port_speed_gbit_per_s: float = Field(gt=0, description="Native port speed, Gb/s per direction.")
    breakout_ports: int | None = Field(
        default=None, ge=1, description="Ports when every port is split (e.g. 128x400G)."
    )
    breakout_port_speed_gbit_per_s: float | None = Field(
        default=None, gt=0, description="Speed of one breakout port, Gb/s."
    )
    more_breakouts: tuple[PortBreakout, ...] = Field(
        default=(),
        description=(
            "Further breakout modes besides breakout_ports (SN5600: 256 x 200G as well as "
            "128 x 400G); each port count times its speed equals the switching capacity."
        ),
    )
    osfp_cages: int | None = Field(
        default=None, ge=1, description="Physical cages (twin-port OSFP holds 2 ports)."
    )
    asics_per_switch: int | None = Field(default=None, ge=1, description="Switch ASICs inside.")
    power_typical_w: float | None = Field(
        default=None, gt=0, description="Typical power, W (passive cables, no optics): energy."
    )
    power_max_w: float | None = Field(
        default=None, gt=0, description="Maximum power, W, per the manual: provisioning."
    )
    power_max_includes_optics: bool | None = Field(
        default=None, description="True when power_max_w already counts modules/active cables."
    )
    rack_units: int | None = Field(default=None, ge=1, description="Height, U (null for chips).")
    packet_buffer_mb: float | None = Field(
        default=None,
        gt=0,
        description="Shared packet buffer, MB (10^6 bytes): PFC headroom is checked against it.",
    )
    price_usd: float | None = Field(default=None, gt=0, description="Price per switch, USD.")
    in_network_reduction: Literal["sharp", "nvls"] | None = Field(
        default=None,
        description=(
            "Reduction the switch performs in-network: 'sharp' (InfiniBand SHARP, used by NCCL "
            "CollNet) or 'nvls' (NVLink SHARP on an NVSwitch); null = none."
        ),
    )
    nvls_algbw_per_line_rate: float | None = Field(
        default=None,
        gt=0,
        description=(
            "NVLS all-reduce algbw measured with nccl-tests on a domain of this NVSwitch, "
            "divided by the GPU's one-direction NVLink line rate (algbw, not busbw: it stays "
            "the same for any group size); null = not measured."
        ),
    )

    @property
    def switching_capacity_tbit_per_s(self) -> float:
        """radix x port speed, Tb/s, one direction."""
        return self.radix_ports * self.port_speed_gbit_per_s / 1000.0

    @model_validator(mode="after")
    def _breakout_pairs(self) -> "SwitchSku":
        if (self.breakout_ports is None) != (self.breakout_port_speed_gbit_per_s is None):
            raise ValueError("breakout_ports and breakout_port_speed_gbit_per_s go together")
        capacity = self.radix_ports * self.port_speed_gbit_per_s
        for mode in self.more_breakouts:
            if abs(mode.ports * mode.speed_gbit_per_s - capacity) > 1e-6:
                raise ValueError(
                    f"more_breakouts {mode.ports} x {mode.speed_gbit_per_s:g}G does not equal "
                    f"the switching capacity {capacity:g} Gb/s"
                )
        return self

    def port_modes(self) -> list[tuple[int, float]]:
        """(ports, Gb/s) of every way the switch runs its ports: native, then breakouts."""
        modes = [(self.radix_ports, float(self.port_speed_gbit_per_s))]
        if self.breakout_ports and self.breakout_port_speed_gbit_per_s:
            modes.append((self.breakout_ports, float(self.breakout_port_speed_gbit_per_s)))
        modes += [(mode.ports, float(mode.speed_gbit_per_s)) for mode in self.more_breakouts]
        return modes


class NicSku(CatalogEntry):
    """A host network adapter (NIC / DPU / SuperNIC)."""

    vendor: str = Field(min_length=1, description="Vendor name.")
    protocols: tuple[Literal["infiniband", "ethernet"], ...] = Field(
        min_length=1, description="Protocols the adapter speaks."
    )
    ports: int = Field(default=1, ge=1, description="Network ports on the card at line rate.")
    line_rate_gbit_per_s: float = Field(gt=0, description="Line rate per port, Gb/s.")
    effective_gb_per_s_per_port: float = Field(
        gt=0,
        description="Bandwidth per port that NCCL-class tools achieve, GB/s (busbw ceiling).",
    )
    ethernet_max_port_gbit_per_s: float | None = Field(
        default=None,
        gt=0,
        description=(
            "Fastest Ethernet port the adapter runs when below its line rate (ConnectX-8: "
            "2 x 400GbE, no 800GbE on one port); null = the line rate."
        ),
    )
    pcie: str | None = Field(default=None, description="Host interface, e.g. 'Gen5 x16'.")
    power_w: float | None = Field(default=None, gt=0, description="Card power, W.")
    price_usd: float | None = Field(default=None, gt=0, description="Price per card, USD.")

    @property
    def effective_fraction_of_line_rate(self) -> float:
        """effective GB/s x 8 / line-rate Gb/s."""
        return self.effective_gb_per_s_per_port * 8.0 / self.line_rate_gbit_per_s


class OpticSku(CatalogEntry):
    """A transceiver module or a cable (DAC / ACC / AEC / AOC)."""

    vendor: str = Field(min_length=1, description="Vendor name or 'generic'.")
    part_number: str | None = Field(default=None, description="Vendor part number.")
    media: Literal["dac", "acc", "aec", "aoc", "transceiver"] = Field(
        description="Passive copper, active copper, active electrical, active optical, module."
    )
    fiber: Literal["multimode", "single-mode"] | None = Field(
        default=None, description="Fiber type for transceivers."
    )
    form_factor: str = Field(min_length=1, description="OSFP, OSFP twin-port, QSFP112, ...")
    speed_gbit_per_s: float = Field(gt=0, description="Total speed of one module/cable end.")
    twin_port: bool = Field(description="Two ports in one cage (2x400G in an 800G OSFP).")
    reach_m: float = Field(gt=0, description="Maximum reach, m.")
    coherent: bool = Field(
        default=False,
        description=(
            "A coherent DWDM pluggable (400ZR, OpenZR+) for WAN / data-centre interconnect; "
            "never picked for links inside a site."
        ),
    )
    power_w: float | None = Field(
        default=None,
        ge=0,
        description="Typical power of one module (or one cable end), W; 0 for passive copper.",
    )
    power_max_w: float | None = Field(default=None, ge=0, description="Maximum power, W.")
    price_usd: float | None = Field(default=None, gt=0, description="Price per module, USD.")
