"""The per-site table of a run (site, GPUs, switches by tier, racks, IT and facility power) and
its totals, read from the typed fabric and facility results: each site's own fabric and
facility, and the engines' own cluster totals (nothing is summed here)."""

from dataclasses import dataclass

from models_engine.engines.fabric.result import FabricTotals, SwitchCounts
from models_engine.engines.facility.result import FacilityTotals
from studio.runs.selectors import TypedResults


@dataclass(frozen=True)
class SiteRow:
    site_id: str
    site_name: str
    gpus: int
    switches: SwitchCounts
    racks: int
    it_kw: float
    facility_kw: float


@dataclass(frozen=True)
class SiteTable:
    rows: list[SiteRow]
    fabric: FabricTotals
    facility: FacilityTotals

    @property
    def multi_site(self) -> bool:
        return len(self.rows) > 1


def site_table(results: TypedResults | None) -> SiteTable | None:
    if results is None or results.fabric is None or results.facility is None:
        return None
    fabric, facility = results.fabric, results.facility
    rows = []
    for site in fabric.sites:
        site_facility = facility.site(site.site_id)
        rows.append(
            SiteRow(
                site_id=site.site_id,
                site_name=site.site_name,
                gpus=site.gpus,
                switches=site.scale_out.switches,
                racks=site_facility.rack_summary.total_racks,
                it_kw=site_facility.power.it_kw.total,
                facility_kw=site_facility.power.facility_kw,
            )
        )
    return SiteTable(rows=rows, fabric=fabric.totals, facility=facility.totals)
