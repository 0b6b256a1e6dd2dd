"""Typed result of the fabric engine.

The fabric engine owns switches, links, optics, cables, NICs, per-tier bandwidth and the
network the collectives run on. A design has one compute fabric per site (`SiteFabric`); the
cluster result (`FabricResult`) holds every site's fabric, the WAN / data-centre-interconnect
equipment between sites, the cluster BOM (every line tagged with its site) and the totals.
"""

from __future__ import annotations

from models_engine.engines.result_base import EngineResult, JsonDict, ResultPart


class BomLine(ResultPart):
    """One bill-of-materials line; totals are quantity x unit figures (None = not published)."""

    item: str
    catalog_id: str | None
    category: str
    network: str
    quantity: int
    unit_power_w: float | None
    unit_power_max_w: float | None
    unit_price_usd: float | None
    total_power_w: float | None
    total_power_max_w: float | None
    total_price_usd: float | None
    placement: str | None
    rack_units: int | float | None
    note: str | None
    site: str | None = None
    # Where the power figure comes from: catalog, allowance (note says how), passive (cables),
    # in-system (counted in the system's max power) or external (a carrier's equipment).
    power_basis: str | None = None
    speed_gbps: float | None = None  # line rate of one port / module / cable, when it has one


class SwitchCounts(ResultPart):
    leaf: int
    spine: int
    core: int
    total: int


class LinkGroup(ResultPart):
    links: int
    link_speed_gbps: float
    cables: int
    medium: str
    reach_class_m: float  # the longest run this link class was chosen for
    reach_m: float = 0.0  # what the chosen cable or shortest module reaches (>= reach_class_m)
    transceivers_switch_side: int
    transceivers_node_side: int

    @property
    def transceivers(self) -> int:
        return self.transceivers_switch_side + self.transceivers_node_side


class Transceivers(ResultPart):
    switch_side: int
    node_side: int
    fabric_manager_side: int
    total: int
    by_module: list[JsonDict]


class Nics(ResultPart):
    nic_sku: str
    ports: int
    cards: int
    speed_gbps: float


class ScaleOut(ResultPart):
    """The compute (scale-out) fabric of one site."""

    topology: str
    technology: str
    switch_sku: str
    nic_sku: str
    nodes: int
    gpus: int
    rails: int | None
    planes: int
    link_speed_gbps: float
    port_mode: JsonDict
    tiers: int
    scalable_units: int | None
    nodes_per_su: int | None
    leaves_per_su: int | None
    nodes_per_leaf: int | None
    free_node_slots: int
    pods: int
    switches: SwitchCounts
    switch_tiers: list[JsonDict]
    ports: JsonDict
    links: dict[str, LinkGroup]
    cables: JsonDict
    transceivers: Transceivers
    nics: Nics
    fabric_manager: JsonDict
    oversubscription: JsonDict
    equal_links: JsonDict
    bisection: JsonDict
    hops: dict[str, int]
    capacity: JsonDict
    growth_step: JsonDict

    @property
    def inter_switch_transceivers(self) -> int:
        return sum(g.transceivers for key, g in self.links.items() if key != "node_leaf")

    @property
    def node_link_transceivers(self) -> int:
        group = self.links.get("node_leaf")
        return group.transceivers if group else 0


class AuxiliaryNetwork(ResultPart):
    """Frontend or storage network: `converged` rides the compute fabric."""

    mode: str
    carried_on: str | None = None
    switch_sku: str | None = None
    endpoints: int | None = None
    storage_target_ports: int | None = None
    nic_ports: int | None = None
    nic_speed_gbps: float | None = None
    switches: int
    tiers: list[JsonDict]
    links: JsonDict


class NetworkForPerformance(ResultPart):
    """What the collectives and performance engines run on: per-GPU bandwidth per level."""

    tiers: int
    nics_per_gpu: float
    scale_out_line_rate_gbit_per_s_per_gpu: float
    scale_out_effective_gbytes_per_s_per_gpu: float
    scale_out_effective_gbytes_per_s_per_gpu_cross_leaf: float
    scale_out_effective_gbytes_per_s_per_gpu_cross_pod: float
    oversubscription: dict[str, float]
    hops: dict[str, int]
    max_switch_hops: int
    rails: int | None
    planes: int
    nvlink_domain_gpus: int
    nvlink_gbytes_per_s_per_gpu: float
    effective_source: str


class FabricPower(ResultPart):
    switch_typical_w: float
    switch_max_w: float
    transceiver_typical_w: float
    transceiver_max_w: float
    appliance_typical_w: float
    appliance_max_w: float
    router_typical_w: float
    router_max_w: float
    total_typical_w: float
    total_max_w: float
    max_w_by_network: dict[str, float]
    allowance_typical_w: float = 0.0  # the part of the totals that rests on power allowances
    allowance_max_w: float = 0.0
    lines_without_power: int = 0  # no figure, and not counted in a system or off site


class FabricPrice(ResultPart):
    known_total: float
    items_without_price: list[str]


class SiteFabric(EngineResult):
    """Every network of one site."""

    site_id: str
    site_name: str
    gpus: int
    scale_up: JsonDict
    scale_out: ScaleOut
    frontend_network: AuxiliaryNetwork
    storage_network: AuxiliaryNetwork
    roce: JsonDict
    findings: list[JsonDict]
    bom: list[BomLine]
    power_w: FabricPower
    price_usd: FabricPrice
    diagram: JsonDict
    network_for_performance: NetworkForPerformance
    breakdown: JsonDict


class WanLinkPlan(ResultPart):
    """The equipment one WAN link needs: the same ports and coherent optics at each end."""

    from_site: str
    to_site: str
    bandwidth_gbps: float
    rtt_ms: float
    fibre_km_estimate: float  # one-way fibre route from the RTT (an upper bound)
    reach_class: str  # "400zr", "openzr+" or "beyond-pluggable-reach"
    ports_per_end: int
    port_speed_gbps: float
    transceivers: int  # coherent modules on both ends (0 beyond pluggable reach)
    router_sku: str
    optic_sku: str | None  # None beyond pluggable reach (a line system or leased wave is needed)
    line_system_needed: bool  # amplifiers / mux or a leased wavelength, not priced


class WanPlan(ResultPart):
    """WAN / data-centre-interconnect equipment between the sites, per site and per link."""

    router_sku: str
    wan_ports_per_router: int
    links: list[WanLinkPlan]
    ports_by_site: dict[str, int]
    routers_by_site: dict[str, int]
    transceivers: int
    bom: list[BomLine]  # every line tagged with its site
    findings: list[JsonDict]


class FabricTotals(ResultPart):
    """Cluster totals over every site (and the WAN equipment)."""

    sites: int
    gpus: int
    nodes: int
    switches: SwitchCounts
    transceivers: int
    cables: int
    nic_cards: int
    wan_routers: int
    wan_transceivers: int


class FabricResult(EngineResult):
    sites: list[SiteFabric]
    wan: WanPlan | None
    totals: FabricTotals
    bom: list[BomLine]
    power_w: FabricPower
    price_usd: FabricPrice
    findings: list[JsonDict]

    def site(self, site_id: str) -> SiteFabric:
        return next(s for s in self.sites if s.site_id == site_id)

    def site_bom(self, site_id: str) -> list[BomLine]:
        """Every BOM line placed at one site: its networks and its WAN equipment."""
        return [line for line in self.bom if line.site == site_id]

    @property
    def primary(self) -> SiteFabric:
        """The site with the most GPUs: the network a single-site step runs on."""
        return max(self.sites, key=lambda s: s.gpus)
