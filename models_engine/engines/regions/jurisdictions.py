"""Where a site is, legally: its country (from the catalog region when the site names one) and
the blocs that country belongs to, and whether a residency rule allows data there."""

from __future__ import annotations

from dataclasses import dataclass

# EU member states, ISO 3166-1 alpha-2 (Greece also as "EL", the EU's own code), 2025.
EU_MEMBERS = frozenset(
    {
        "AT", "BE", "BG", "HR", "CY", "CZ", "DK", "EE", "FI", "FR", "DE", "GR", "EL", "HU",
        "IE", "IT", "LV", "LT", "LU", "MT", "NL", "PL", "PT", "RO", "SK", "SI", "ES", "SE",
    }
)  # fmt: skip
BLOCS = {"EU": EU_MEMBERS}
# Same regime, two spellings (ISO "GB", common "UK").
ALIASES = {"UK": "GB", "EL": "GR"}


def canonical(code: str) -> str:
    code = code.strip().upper()
    return ALIASES.get(code, code)


@dataclass(frozen=True)
class SiteLocation:
    site_id: str
    jurisdiction: str
    country: str | None  # known country, when the jurisdiction or the catalog region says

    def codes(self) -> frozenset[str]:
        """Every code this site satisfies: its country, the blocs holding it, its stated
        jurisdiction."""
        codes = {canonical(self.jurisdiction)}
        if self.country:
            country = canonical(self.country)
            codes.add(country)
            codes.update(bloc for bloc, members in BLOCS.items() if country in members)
        return frozenset(codes)


def site_location(site, catalog) -> SiteLocation:
    jurisdiction = canonical(site.jurisdiction)
    country = None
    if site.catalog_region_id and site.catalog_region_id in catalog.regions:
        country = catalog.regions[site.catalog_region_id].country
    elif jurisdiction not in BLOCS:
        country = jurisdiction
    return SiteLocation(site.id, jurisdiction, country)


def residency_verdict(location: SiteLocation, allowed: list[str]) -> str:
    """The verdict for one site: allowed, forbidden, or unclear (a bloc-level site against a
    country-level rule: an "EU" site may or may not be in Germany)."""
    wanted = {canonical(code) for code in allowed}
    if wanted & location.codes():
        return "allowed"
    bloc = BLOCS.get(location.jurisdiction)
    if location.country is None and bloc and wanted & bloc:
        return "unclear"
    return "forbidden"
