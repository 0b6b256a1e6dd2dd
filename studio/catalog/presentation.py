"""How catalog entries are shown in tables: which figures, in which order, with units. Only
presentation: the figures themselves come from the engine's catalog."""

from models_engine import Catalog

# Key figures per kind (field name, column title with unit).
KEY_FIGURES: dict[str, list[tuple[str, str]]] = {
    "gpus": [
        ("bf16_dense_tflops", "BF16 dense TFLOP/s"),
        ("fp8_dense_tflops", "FP8 dense TFLOP/s"),
        ("hbm_gb", "HBM GB"),
        ("hbm_bandwidth_tb_per_s", "HBM TB/s"),
        ("nvlink_bandwidth_gb_per_s_per_gpu", "NVLink GB/s per GPU"),
        ("scale_up_domain_gpus", "NVLink domain GPUs"),
        ("tdp_w", "TDP W"),
        ("price_usd", "price USD"),
    ],
    "systems": [
        ("gpu_id", "GPU"),
        ("gpus_per_system", "GPUs"),
        ("power_max_kw", "max power kW"),
        ("scale_out_nics_per_system", "scale-out NICs"),
        ("rack_units", "rack units"),
        ("price_usd", "price USD"),
    ],
    "switches": [
        ("fabric", "fabric"),
        ("radix_ports", "radix (ports)"),
        ("port_speed_gbit_per_s", "port Gb/s"),
        ("power_typical_w", "typical W"),
        ("power_max_w", "max W"),
        ("price_usd", "price USD"),
    ],
    "nics": [
        ("line_rate_gbit_per_s", "line rate Gb/s"),
        ("effective_gb_per_s_per_port", "effective GB/s per port"),
        ("power_w", "power W"),
        ("price_usd", "price USD"),
    ],
    "optics": [
        ("media", "media"),
        ("speed_gbit_per_s", "speed Gb/s"),
        ("reach_m", "reach m"),
        ("power_w", "power W"),
        ("price_usd", "price USD"),
    ],
    "storage": [
        ("kind", "kind"),
        ("capacity_tb_per_unit", "TB per unit"),
        ("read_gb_per_s_per_unit", "read GB/s per unit"),
        ("power_w", "power W per unit"),
        ("price_usd_per_tb", "price USD/TB"),
        ("price_usd_per_tb_month", "USD per TB-month"),
    ],
    "cooling": [
        ("max_rack_kw", "max rack kW"),
        ("pue_typical", "PUE typical"),
        ("pue_min", "PUE min"),
        ("pue_max", "PUE max"),
        ("wue_l_per_kwh", "WUE L/kWh"),
    ],
    "regions": [
        ("jurisdiction", "jurisdiction"),
        ("climate", "climate"),
        ("power_price_usd_per_kwh", "power USD/kWh"),
        ("grid_carbon_g_co2e_per_kwh", "grid gCO2e/kWh"),
        ("colocation_usd_per_kw_month", "colocation USD/kW-month"),
    ],
}


# Kinds whose unpriced entries the cost engine prices by a marked allowance.
ALLOWANCE_PRICED = {"switches", "nics", "optics"}


def _shown(value) -> str | None:
    """A figure as a user reads it: thousands separators, no trailing `.0`."""
    if value is None or isinstance(value, bool | str):
        return value
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def _in_system(kind: str, entry) -> bool:
    """NVSwitch chips and NVLink trays come inside a system and are priced with it."""
    return kind == "switches" and entry.fabric == "nvlink"


def _price(kind: str, entry, field: str) -> str | None:
    value = getattr(entry, field, None)
    if value is None and _in_system(kind, entry):
        return "in the system price"
    if value is None:
        return "no price: cost allowance" if kind in ALLOWANCE_PRICED else None
    shown = _shown(value)
    return f"{shown} (allowance)" if entry.price_allowance else shown


def _figure(kind: str, entry, field: str) -> str | None:
    if "usd" in field:
        return _price(kind, entry, field)
    value = getattr(entry, field, None)
    if value is None and field == "power_typical_w" and not _in_system(kind, entry):
        return "allowance (W per Tb/s)"  # the fabric engine scales a peer's figures
    return _shown(value)


def _values(kind: str, entry, figures: list[tuple[str, str]]) -> list:
    return [_figure(kind, entry, field) for field, _ in figures]


def catalog_tables(catalog: Catalog, team_ids_by_kind: dict[str, set[str]]) -> list[dict]:
    """[{kind, columns, rows: [{id, name, values, sources, team}]}] for the catalog page."""
    tables = []
    for kind, figures in KEY_FIGURES.items():
        rows = []
        for entry in getattr(catalog, kind).values():
            rows.append(
                {
                    "id": entry.id,
                    "name": entry.name,
                    "values": _values(kind, entry, figures),
                    "sources": [f"{s.title} ({s.ref}, {s.date})" for s in entry.sources],
                    "team": entry.id in team_ids_by_kind.get(kind, set()),
                }
            )
        tables.append({"kind": kind, "columns": [title for _, title in figures], "rows": rows})
    return tables


def entry_summary(kind: str, entry) -> str:
    """'H100 SXM: 989 BF16 dense TFLOP/s, 80 HBM GB, ...' from the kind's key figures."""
    parts = []
    for field, title in KEY_FIGURES.get(kind, [])[:5]:
        value = getattr(entry, field, None)
        if value is not None:
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            parts.append(f"{shown} {title}")
    return f"{entry.name}: {', '.join(parts)}" if parts else entry.name
