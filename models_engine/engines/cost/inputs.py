"""Everything the cost model reads, resolved once: the spec, the catalog, and the other engines'
results when the caller passes them (read defensively with `.get()`), or a simple derivation
from the spec when they are absent. Each derivation is recorded in `derived` so the output says
which figures did not come from the engine that owns them.

Keys read (first match wins):
- fabric: `bom` [{item, catalog_id, category, network, quantity, unit_power_w, unit_price_usd}],
  `scale_out.tiers`;
- facility: `power.it_kw.total` | `it_power_kw`, `power.pue`, `power.annual_mwh`,
  `cooling.wue_l_per_kwh`;
- storage: `durability.tiers` [{tier, usable_tb, raw_tb}];
- performance: `time_to_train_days` | `training.time_to_train_days`, `tokens_per_s` |
  `inference.tokens_per_s`;
- reliability: `goodput`, `hot_spares.spare_nodes`, `components` [{component,
  failures_per_unit_year, count_in_job} or {component, failures_per_year}];
- regions: `egress.total_usd_per_month`, `egress.dataset_replication_one_time_usd`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from models_engine.catalog import Catalog, GpuSku, SystemSku
from models_engine.hardware import GpuFigures, resolve_gpu

from .assumptions import Assumptions
from .fabric_fallback import BomLine, fallback_bom
from .trace import Trace, assumption_trace, catalog_trace, override_trace

HOURS_PER_YEAR = 8760.0
# Cheah's spreadsheet tiers: <= 64 nodes one switch layer, <= 2,048 nodes two, more three.
ONE_TIER_MAX_NODES = 64
TWO_TIER_MAX_NODES = 2048


@dataclass(frozen=True)
class SiteInputs:
    id: str
    name: str
    gpu_share: float
    power_usd_per_kwh: float
    power_trace: Trace
    carbon_g_per_kwh: float
    colocation_usd_per_kw_month: float
    colocation_trace: Trace


@dataclass(frozen=True)
class TierInputs:
    index: int
    kind: str
    usable_tb: float  # whole cluster (local NVMe multiplied by nodes)
    raw_tb: float
    sku: str | None
    overhead: float  # raw / usable


@dataclass(frozen=True)
class FailureInput:
    component: str
    failures_per_year: float  # whole cluster
    source: str


@dataclass(frozen=True)
class CostInputs:
    spec: Any
    gpu: GpuFigures
    gpu_sku: GpuSku | None
    system: SystemSku | None
    gpu_count: int
    nodes: int
    systems: int
    it_power_kw: float
    pue: float
    load_factor: float
    wue_l_per_kwh: float
    sites: tuple[SiteInputs, ...]
    bom: tuple[BomLine, ...]
    fabric_tiers: int
    tiers: tuple[TierInputs, ...]
    time_to_train_days: float | None
    tokens_per_s: float | None
    goodput: float
    failures: tuple[FailureInput, ...]
    egress_usd_per_month: float
    one_time_egress_usd: float
    hot_spare_nodes: float | None
    derived: tuple[dict[str, str], ...]
    sources: Mapping[str, str]

    @property
    def ownership(self) -> str:
        return self.spec.economics.ownership


def pick(data: Any, *paths: str) -> Any:
    """The first non-None value at any dotted path of a nested dict (None if none)."""
    for path in paths:
        node = data
        for key in path.split("."):
            node = node.get(key) if isinstance(node, Mapping) else None
            if node is None:
                break
        if node is not None:
            return node
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


class _Recorder:
    def __init__(self) -> None:
        self.derived: list[dict[str, str]] = []
        self.sources: dict[str, str] = {}

    def engine(self, name: str, engine: str) -> None:
        self.sources[name] = f"{engine} engine"

    def spec(self, name: str, field: str) -> None:
        self.sources[name] = f"spec: {field}"

    def derive(self, name: str, how: str) -> None:
        self.sources[name] = "derived in the cost engine"
        self.derived.append({"input": name, "how": how})


def _system(spec, catalog: Catalog) -> SystemSku | None:
    sku = spec.compute.system_sku
    return catalog.systems.get(sku) if sku else None


def _compute_power_kw(inputs_gpu: GpuFigures, system, spec, assumptions: Assumptions) -> float:
    compute = spec.compute
    if system is not None and system.power_max_kw:
        return math.ceil(compute.gpu_count / system.gpus_per_system) * system.power_max_kw
    ratio = assumptions.number("server-power-per-gpu-tdp")
    return compute.gpu_count * inputs_gpu.tdp_w / 1000.0 * ratio


def _bom_from_fabric(fabric: Mapping | None, catalog: Catalog) -> list[BomLine] | None:
    raw = pick(fabric, "bom") if fabric else None
    if not isinstance(raw, list) or not raw:
        return None
    lines = []
    for item in raw:
        if not isinstance(item, Mapping):
            continue
        quantity = _number(item.get("quantity"))
        if quantity is None:
            continue
        catalog_id = item.get("catalog_id")
        category = _category(str(item.get("category") or ""), catalog_id, catalog)
        unit_power = _number(item.get("unit_power_w"))
        if unit_power is None and _number(item.get("total_power_w")) is not None and quantity:
            unit_power = _number(item.get("total_power_w")) / quantity
        lines.append(
            BomLine(
                item=str(item.get("item") or catalog_id or "BOM item"),
                catalog_id=catalog_id if isinstance(catalog_id, str) else None,
                category=category,
                quantity=quantity,
                unit_price_usd=_number(item.get("unit_price_usd")),
                unit_power_w=unit_power,
                network=item.get("network") if isinstance(item.get("network"), str) else None,
            )
        )
    return lines


def _category(text: str, catalog_id: Any, catalog: Catalog) -> str:
    if isinstance(catalog_id, str):
        if catalog_id in catalog.switches:
            fabric = catalog.switches[catalog_id].fabric
            return "scale-up" if fabric == "nvlink" else "switch"
        if catalog_id in catalog.nics:
            return "nic"
        if catalog_id in catalog.optics:
            return "optics"
    lowered = text.lower()
    if any(word in lowered for word in ("nvlink", "nvswitch", "scale-up", "scale_up")):
        return "scale-up"
    if any(word in lowered for word in ("optic", "transceiver", "cable", "dac", "aoc", "aec")):
        return "optics"
    if "switch" in lowered:
        return "switch"
    if any(word in lowered for word in ("nic", "adapter", "hca", "dpu")):
        return "nic"
    return "other"


def _sites(spec, catalog: Catalog, assumptions: Assumptions) -> tuple[SiteInputs, ...]:
    """Per-site prices. A site figure equal to its catalog region's traces to the catalog
    entry (with its date); a different one is the design's own figure."""
    overrides = spec.economics.price_overrides
    out = []
    for index, site in enumerate(spec.regions.sites):
        region = catalog.regions.get(site.catalog_region_id) if site.catalog_region_id else None
        if overrides.power_usd_per_kwh is not None:
            power = overrides.power_usd_per_kwh
            power_trace = override_trace("economics.price_overrides.power_usd_per_kwh")
        else:
            power = site.power_price_usd_per_kwh
            if region is not None and math.isclose(power, region.power_price_usd_per_kwh):
                power_trace = catalog_trace("regions", region)
            else:
                power_trace = Trace(
                    kind="design",
                    ref=f"regions.sites.{index}.power_price_usd_per_kwh",
                    title=f"site {site.id} electricity price given in the design",
                )
        site_colo = site.colocation_usd_per_kw_month
        region_colo = region.colocation_usd_per_kw_month if region is not None else None
        if (
            site_colo is not None
            and region_colo is not None
            and math.isclose(site_colo, region_colo)
        ):
            colo = site_colo
            colo_trace = catalog_trace("regions", region, date=region.colocation_price_date)
        elif site_colo is not None:
            colo = site_colo
            colo_trace = Trace(
                kind="design",
                ref=f"regions.sites.{index}.colocation_usd_per_kw_month",
                title=f"site {site.id} colocation price given in the design",
            )
        elif overrides.colocation_usd_per_kw_month is not None:
            colo = overrides.colocation_usd_per_kw_month
            colo_trace = override_trace("economics.price_overrides.colocation_usd_per_kw_month")
        elif region is not None and region.colocation_usd_per_kw_month is not None:
            colo = region.colocation_usd_per_kw_month
            colo_trace = catalog_trace("regions", region, date=region.colocation_price_date)
        else:
            colo = assumptions.number("colocation-usd-per-kw-month")
            colo_trace = assumption_trace(assumptions, "colocation-usd-per-kw-month")
        out.append(
            SiteInputs(
                id=site.id,
                name=site.name,
                gpu_share=site.gpu_share,
                power_usd_per_kwh=power,
                power_trace=power_trace,
                carbon_g_per_kwh=site.carbon_gco2e_per_kwh,
                colocation_usd_per_kw_month=colo,
                colocation_trace=colo_trace,
            )
        )
    return tuple(out)


def _durability_overhead(spec) -> float:
    durability = spec.storage.durability
    if durability.scheme == "replication":
        return float(durability.replicas)
    return (durability.ec_data_k + durability.ec_parity_m) / durability.ec_data_k


def _engine_tiers(storage: Mapping | None) -> dict[int, Mapping]:
    """Storage engine tiers by spec index: `durability.tiers` entries carry their `tier`
    index; a plain `tiers` list is positional."""
    listed = pick(storage, "durability.tiers")
    if isinstance(listed, list):
        return {
            int(item["tier"]): item
            for item in listed
            if isinstance(item, Mapping) and _number(item.get("tier")) is not None
        }
    listed = pick(storage, "tiers")
    if isinstance(listed, list):
        return {i: item for i, item in enumerate(listed) if isinstance(item, Mapping)}
    return {}


def _tiers(spec, storage: Mapping | None, nodes: int, rec: _Recorder) -> tuple[TierInputs, ...]:
    overhead = _durability_overhead(spec)
    out = []
    given_by_index = _engine_tiers(storage)
    for index, tier in enumerate(spec.storage.tiers):
        given = given_by_index.get(index, {})
        usable = _number(pick(given, "usable_tb", "usable_capacity_tb"))
        raw = _number(pick(given, "raw_tb", "raw_capacity_tb"))
        if tier.kind == "local-nvme":
            per_cluster = tier.capacity_tb * nodes
            usable, raw, tier_overhead = per_cluster, per_cluster, 1.0
        else:
            tier_overhead = overhead
            if usable is None or raw is None:
                usable, raw = tier.capacity_tb, tier.capacity_tb * overhead
                rec.derive(
                    f"storage.tiers.{index}.raw_tb",
                    f"usable {tier.capacity_tb:g} TB x durability overhead {overhead:.4g} "
                    f"({spec.storage.durability.scheme})",
                )
            else:
                tier_overhead = raw / usable if usable else overhead
                rec.engine(f"storage.tiers.{index}.raw_tb", "storage")
        out.append(TierInputs(index, tier.kind, usable, raw, tier.sku, tier_overhead))
    return tuple(out)


def _active_parameters(workload) -> float:
    """Parameters touched per token (dense, or shared + top-k experts for MoE)."""
    h = workload.hidden_size
    head_dim = workload.head_dim or h // workload.attention_heads
    attention = h * head_dim * (2 * workload.attention_heads + 2 * workload.kv_heads_effective)
    matrices = 3 if workload.gated_mlp else 2
    dense_mlp = matrices * h * workload.ffn_hidden_size
    moe = workload.moe
    total = 0.0
    for index in range(workload.layers):
        is_moe = (
            moe is not None
            and index >= moe.first_dense_layers
            and (index - moe.first_dense_layers) % moe.moe_layer_frequency == 0
        )
        if is_moe:
            experts = moe.top_k + moe.shared_experts
            total += attention + experts * matrices * h * moe.expert_ffn_hidden_size
        else:
            total += attention + dense_mlp
    embeddings = workload.vocab_size * h * (1 if workload.tied_embeddings else 2)
    return total + embeddings


def _time_to_train_days(
    spec, gpu: GpuFigures, performance: Mapping | None, assumptions, rec
) -> float | None:
    if spec.workload.kind != "training":
        return None
    given = _number(
        pick(performance, "time_to_train_days", "training.time_to_train_days", "time.train_days")
    )
    if given is not None and given > 0:
        rec.engine("time_to_train_days", "performance")
        return given
    mfu = assumptions.number("fallback-model-flops-utilisation")
    peak = gpu.bf16_dense_tflops
    if spec.workload.precision == "fp8" and gpu.fp8_dense_tflops:
        peak = gpu.fp8_dense_tflops
    flops = 6.0 * _active_parameters(spec.workload) * spec.workload.tokens_to_train
    seconds = flops / (spec.compute.gpu_count * peak * 1e12 * mfu)
    rec.derive(
        "time_to_train_days",
        f"6 x active parameters x tokens / (GPUs x {peak:g} TFLOP/s x MFU {mfu:g}); "
        "no performance result",
    )
    return seconds / 86400.0


def _tokens_per_s(spec, performance: Mapping | None, rec) -> float | None:
    given = _number(
        pick(
            performance,
            "inference.tokens_per_s",
            "tokens_per_s",
            "inference.delivered_tokens_per_s",
            "throughput.tokens_per_s",
        )
    )
    if given is not None and given > 0:
        rec.engine("tokens_per_s", "performance")
        return given
    if spec.workload.kind == "inference" and spec.workload.inference is not None:
        rec.derive("tokens_per_s", "the design's target_tokens_per_s (fleet assumed to meet it)")
        return spec.workload.inference.target_tokens_per_s
    return None


def _failures(reliability: Mapping | None, rec) -> tuple[FailureInput, ...]:
    raw = pick(reliability, "components", "failure_rates", "interruptions_by_component")
    items: list[tuple[str, Any]] = []
    if isinstance(raw, Mapping):
        items = [(str(name), value) for name, value in raw.items()]
    elif isinstance(raw, list):
        items = [
            (str(item.get("component", "")), item) for item in raw if isinstance(item, Mapping)
        ]
    out = []
    for name, value in items:
        per_year = _number(value) if not isinstance(value, Mapping) else None
        if isinstance(value, Mapping):
            per_year = _number(
                pick(value, "failures_per_year", "expected_failures_per_year", "events_per_year")
            )
            if per_year is None:
                rate = _number(pick(value, "rate_per_unit_year", "failures_per_unit_year", "afr"))
                units = _number(pick(value, "units", "count_in_job", "count", "quantity"))
                per_year = rate * units if rate is not None and units is not None else None
        if name and per_year is not None and per_year >= 0:
            out.append(FailureInput(name.replace("_", "-"), per_year, "reliability engine"))
    if out:
        rec.engine("failure_rates", "reliability")
    return tuple(out)


def _egress(spec, regions: Mapping | None, rec) -> tuple[float, float]:
    monthly = _number(
        pick(
            regions,
            "egress_usd_per_month",
            "egress.usd_per_month",
            "egress.cost_usd_per_month",
            "egress.total_usd_per_month",
            "egress",
        )
    )
    if monthly is not None:
        rec.engine("egress_usd_per_month", "regions")
        one_time = _number(pick(regions, "egress.dataset_replication_one_time_usd"))
        return monthly, one_time or 0.0
    links = {
        frozenset((link.from_site, link.to_site)): link.egress_usd_per_gb
        for link in spec.regions.wan_links
    }
    default_price = 0.02  # spec default egress_usd_per_gb
    one_time = 0.0
    for dataset in spec.regions.datasets:
        first, *others = dataset.stored_at
        for site in others:
            price = links.get(frozenset((first, site)), default_price)
            one_time += dataset.size_tb * 1000.0 * price
    rec.derive(
        "egress_usd_per_month",
        "no regions result: recurring WAN egress not modelled; one-time dataset replication "
        "to every extra stored_at site at the link's egress_usd_per_gb",
    )
    return 0.0, one_time


def resolve_inputs(
    spec,
    catalog: Catalog,
    assumptions: Assumptions,
    *,
    fabric: Mapping | None = None,
    facility: Mapping | None = None,
    storage: Mapping | None = None,
    performance: Mapping | None = None,
    reliability: Mapping | None = None,
    regions: Mapping | None = None,
) -> CostInputs:
    rec = _Recorder()
    compute = spec.compute
    gpu = resolve_gpu(compute, catalog)
    gpu_sku = catalog.gpus.get(compute.gpu_sku) if compute.gpu_sku else None
    system = _system(spec, catalog)
    nodes = compute.gpu_count // compute.gpus_per_node
    systems = math.ceil(compute.gpu_count / system.gpus_per_system) if system else nodes

    bom = _bom_from_fabric(fabric, catalog)
    if bom is not None:
        rec.engine("bom", "fabric")
        tiers_given = _number(pick(fabric, "tiers", "scale_out.tiers", "compute_fabric.tiers"))
    else:
        bom, tiers_given = fallback_bom(spec, catalog)
        rec.derive("bom", "Clos sizing from the switch radix (no fabric result)")
    if tiers_given is not None and tiers_given >= 1:
        fabric_tiers = int(min(3, tiers_given))
    elif nodes <= ONE_TIER_MAX_NODES:
        fabric_tiers = 1
    elif nodes <= TWO_TIER_MAX_NODES:
        fabric_tiers = 2
    else:
        fabric_tiers = 3

    it_kw = _number(
        pick(facility, "it_power_kw", "power.it_kw.total", "power.it_kw", "power.it_power_kw")
    )
    if it_kw is not None and it_kw > 0:
        rec.engine("it_power_kw", "facility")
    else:
        compute_kw = _compute_power_kw(gpu, system, spec, assumptions)
        network_kw = sum((line.unit_power_w or 0.0) * line.quantity for line in bom) / 1000.0
        it_kw = compute_kw + network_kw
        how = (
            f"{systems} x {system.id} power_max_kw"
            if system is not None and system.power_max_kw
            else "GPU TDP x server-power-per-gpu-tdp"
        )
        rec.derive("it_power_kw", f"{how} + BOM network power (storage power not included)")

    cooling = catalog.cooling.get(spec.facility.cooling)
    pue = spec.facility.pue
    if pue is not None:
        rec.spec("pue", "facility.pue")
    else:
        pue = _number(pick(facility, "pue", "power.pue"))
        if pue is not None and pue >= 1:
            rec.engine("pue", "facility")
        elif cooling is not None and cooling.pue_typical is not None:
            pue = cooling.pue_typical
            rec.derive("pue", f"catalog cooling '{cooling.id}' pue_typical")
        else:
            pue = assumptions.number("pue-default")
            rec.derive("pue", "assumption pue-default (Uptime 2023 industry average)")

    energy_mwh = _number(
        pick(facility, "annual_energy_mwh", "power.annual_mwh", "power.annual_energy_mwh")
    )
    if energy_mwh is not None and energy_mwh > 0:
        load_factor = energy_mwh * 1000.0 / (it_kw * pue * HOURS_PER_YEAR)
        rec.engine("load_factor", "facility (annual_energy_mwh / (IT kW x PUE x 8,760 h))")
    else:
        load_factor = assumptions.number("energy-load-factor")
        rec.sources["load_factor"] = "assumption energy-load-factor"

    wue = spec.facility.wue_l_per_kwh
    if wue is not None:
        rec.spec("wue_l_per_kwh", "facility.wue_l_per_kwh")
    else:
        wue = _number(
            pick(facility, "wue_l_per_kwh", "cooling.wue_l_per_kwh", "water.wue_l_per_kwh")
        )
        if wue is not None:
            rec.engine("wue_l_per_kwh", "facility")
        elif cooling is not None and cooling.wue_l_per_kwh is not None:
            wue = cooling.wue_l_per_kwh
            rec.derive("wue_l_per_kwh", f"catalog cooling '{cooling.id}' wue_l_per_kwh")
        else:
            wue = assumptions.number("wue-default-l-per-kwh")
            rec.derive("wue_l_per_kwh", "assumption wue-default-l-per-kwh (industry average)")

    goodput = _number(
        pick(reliability, "goodput", "goodput_fraction", "effective_training_time_ratio")
    )
    if goodput is not None and 0 < goodput <= 1:
        rec.engine("goodput", "reliability")
    else:
        goodput = 1.0
        rec.derive("goodput", "no reliability result: goodput 1.0 (no time lost to failures)")

    hot_spares = _number(
        pick(reliability, "hot_spare_nodes", "hot_spares.spare_nodes", "spare_nodes")
    )
    if hot_spares is not None:
        rec.engine("hot_spare_nodes", "reliability")

    egress_monthly, one_time_egress = _egress(spec, regions, rec)

    return CostInputs(
        spec=spec,
        gpu=gpu,
        gpu_sku=gpu_sku,
        system=system,
        gpu_count=compute.gpu_count,
        nodes=nodes,
        systems=systems,
        it_power_kw=it_kw,
        pue=pue,
        load_factor=load_factor,
        wue_l_per_kwh=wue,
        sites=_sites(spec, catalog, assumptions),
        bom=tuple(bom),
        fabric_tiers=fabric_tiers,
        tiers=_tiers(spec, storage, nodes, rec),
        time_to_train_days=_time_to_train_days(spec, gpu, performance, assumptions, rec),
        tokens_per_s=_tokens_per_s(spec, performance, rec),
        goodput=goodput,
        failures=_failures(reliability, rec),
        egress_usd_per_month=egress_monthly,
        one_time_egress_usd=one_time_egress,
        hot_spare_nodes=hot_spares,
        derived=tuple(rec.derived),
        sources=dict(rec.sources),
    )
