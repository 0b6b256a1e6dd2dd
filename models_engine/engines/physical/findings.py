"""Findings and the assumption list of the physical plan."""

from __future__ import annotations

from models_engine.spec.physical import Physical

from .data import CABLE_TYPE_LABEL, PDU_KW
from .elevation import server_height_u
from .result import Assumption, CableClass, RackTemplate


def _finding(finding_id, severity, message, path, site_id) -> dict:
    return {
        "id": finding_id,
        "severity": severity,
        "message": message,
        "path": path,
        "site": site_id,
    }


def rack_findings(templates: list[RackTemplate], site_id: str) -> list[dict]:
    out = []
    for t in templates:
        if t.units_used > t.height_u:
            out.append(
                _finding(
                    "physical-rack-overfull",
                    "error",
                    f"racks {t.first_rack}-{t.last_rack} need {t.units_used}U "
                    f"(devices and patch panels) in a {t.height_u}U rack",
                    "physical.rack_height_u",
                    site_id,
                )
            )
    return out


def cable_findings(classes: list[CableClass], types, site_id: str) -> list[dict]:
    """An error for each link class whose longest run exceeds its cable type's reach, naming
    the spec field that picks the type (a suggestion of the shortest type that reaches)."""
    out = []
    worst: dict[tuple[str, str], CableClass] = {}
    for row in classes:
        key = (row.network, row.link_class)
        if not row.within_reach and (
            key not in worst or row.max_length_m > worst[key].max_length_m
        ):
            worst[key] = row
    for (network, cls), row in worst.items():
        path = f"physical.cable_types.{cls}" if network == "compute" else "physical.racks_per_row"
        source = "stated" if row.type_source == "design" else "chosen by the fabric engine"
        out.append(
            _finding(
                "physical-cable-reach",
                "error",
                f"{network} {cls.replace('_', '-')} links run up to {row.max_length_m:g} m "
                f"({row.length_class}); {CABLE_TYPE_LABEL[row.cable_type]} ({source}) reaches "
                f"{row.reach_m:g} m. Choose a longer-reach type"
                + (" (fibre-single-mode)" if row.cable_type != "fibre-single-mode" else "")
                + " or shorten the runs (physical.racks_per_row, physical.rows_per_hall)",
                path,
                site_id,
            )
        )
    for (network, cls), (cable_type, source) in types.items():
        if source == "design":
            out.append(
                _finding(
                    "physical-cable-type-stated",
                    "info",
                    f"{network} {cls.replace('_', '-')} cabled as {CABLE_TYPE_LABEL[cable_type]} "
                    "(physical.cable_types); the BOM's optics follow the fabric engine's medium",
                    f"physical.cable_types.{cls}",
                    site_id,
                )
            )
    return out


def height_assumptions(facility_sites) -> list[Assumption]:
    """A row for each site whose server height is not in the catalog (1U per GPU assumed)."""
    return [
        Assumption(
            name=f"server height ({site.system['name']})",
            value=f"{server_height_u(site.system)}U",
            source="assumption: 1U per GPU (DGX H100 ratio); not in the catalog",
        )
        for site in facility_sites
        if site.system["form"] == "server" and not site.system["rack_units"]
    ][:1]


def gear_height_assumptions(bom) -> list[Assumption]:
    """A row for each rack-mounted network part whose height the catalog does not give (the
    facility engine's 1U default is used, so racks and elevations agree)."""
    seen = {}
    for line in bom:
        if (
            line.placement == "network rack"
            and line.category in ("switch", "appliance", "router")
            and not line.rack_units
        ):
            seen.setdefault(line.catalog_id or line.item, line.item.split(": ", 1)[-1])
    return [
        Assumption(
            name=f"height ({name})",
            value="1U",
            source="assumption: not in the catalog (facility engine's default)",
        )
        for name in seen.values()
    ]


def assumptions_of(spec) -> list[Assumption]:
    """Each floor figure used, marked "design" when the spec states it, else its default."""
    stated = spec.physical.model_fields_set
    defaults = Physical()
    rows = []
    for name in (
        "rack_height_u",
        "racks_per_row",
        "rows_per_hall",
        "rack_width_m",
        "row_pitch_m",
        "hall_to_hall_m",
        "cable_slack_fraction",
    ):
        value = getattr(spec.physical, name)
        changed = name in stated and value != getattr(defaults, name)
        rows.append(
            Assumption(
                name=f"physical.{name}",
                value=f"{value:g}",
                source="design" if changed else "assumption (default)",
            )
        )
    rows.append(
        Assumption(
            name="rack PDU",
            value=f"{PDU_KW:.1f} kW",
            source="assumption: 415 V 3-phase 60 A at 80 % continuous (derived)",
        )
    )
    rows.append(
        Assumption(
            name="patch panel",
            value="48 MPO per 1U",
            source="assumption: high-density MPO panel",
        )
    )
    return rows


def reach_class_assumptions(fabric_sites) -> list[Assumption]:
    """The reach class each site's links that leave a rack were bought for (the fabric
    engine's, from its floor estimate), so the page says what the optics assume."""
    rows = []
    for site in fabric_sites:
        groups = [g for g in site.scale_out.links.values() if g.medium != "dac"]
        if not groups:
            continue
        longest = max(g.reach_class_m for g in groups)
        rows.append(
            Assumption(
                name=f"cable reach class ({site.site_name})",
                value=f"{longest:g} m",
                source="fabric engine: longest run of a floor of its compute racks x 1.1 + 8 "
                "positions (assumption: room for network and storage racks and CDUs) in the "
                "stated rows and halls",
            )
        )
    return rows
