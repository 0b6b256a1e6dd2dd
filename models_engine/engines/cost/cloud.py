"""Cloud GPU-hour prices at on-demand, 1-year and 3-year terms, and the cloud-side lines.

Price choice (deterministic): the provider that publishes all three terms for the GPU with the
newest oldest-date wins; otherwise the newest on-demand offer, with committed terms from the
same provider or derived from it with Epoch's default commitment discounts. A design's
`cloud_usd_per_gpu_hour` override is a fourth term, `override`.

Billing: on-demand pays only the utilised GPU-hours (gpus x hours x utilisation); committed
terms (and an override) pay every hour of the reservation (gpus x hours).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from models_engine.catalog import Catalog, CloudPrice

from .assumptions import Assumptions
from .inputs import CostInputs
from .trace import (
    UNPRICED,
    CostLine,
    Trace,
    assumption_trace,
    catalog_trace,
    derived,
    override_trace,
    storage_service_line,
)

TERMS = ("on-demand", "reserved-1yr", "reserved-3yr")
OVERRIDE = "override"


@dataclass(frozen=True)
class CloudTermPrice:
    term: str
    usd_per_gpu_hour: float | None
    trace: Trace
    catalog_id: str | None = None
    provider: str | None = None

    @property
    def pays_all_hours(self) -> bool:
        return self.term != "on-demand"

    def as_dict(self) -> dict:
        return {
            "term": self.term,
            "usd_per_gpu_hour": self.usd_per_gpu_hour,
            "catalog_id": self.catalog_id,
            "provider": self.provider,
            **self.trace.as_dict(),
        }


def _newest(offers: list[CloudPrice]) -> CloudPrice:
    return max(offers, key=lambda p: (p.price_date or "", -p.usd_per_gpu_hour, p.id))


def _priced(term: str, offer: CloudPrice) -> CloudTermPrice:
    return CloudTermPrice(
        term, offer.usd_per_gpu_hour, catalog_trace("cloud_prices", offer), offer.id, offer.provider
    )


def cloud_term_prices(
    inputs: CostInputs, catalog: Catalog, assumptions: Assumptions
) -> dict[str, CloudTermPrice]:
    gpu_id = inputs.gpu_sku.id if inputs.gpu_sku is not None else None
    offers = [p for p in catalog.cloud_prices.values() if gpu_id and p.gpu_id == gpu_id]
    by_provider: dict[str, dict[str, list[CloudPrice]]] = {}
    for offer in offers:
        by_provider.setdefault(offer.provider, {}).setdefault(offer.term, []).append(offer)
    complete = {
        provider: {term: _newest(terms[term]) for term in TERMS}
        for provider, terms in by_provider.items()
        if all(term in terms for term in TERMS)
    }
    out: dict[str, CloudTermPrice] = {}
    if complete:
        provider = max(
            complete,
            key=lambda name: (min(o.price_date or "" for o in complete[name].values()), name),
        )
        out = {term: _priced(term, complete[provider][term]) for term in TERMS}
    else:
        on_demand = [o for o in offers if o.term == "on-demand"]
        if on_demand:
            base = _newest(on_demand)
            out["on-demand"] = _priced("on-demand", base)
            discounts = assumptions.value("cloud-commitment-discount")
            for term, years in (("reserved-1yr", "1yr"), ("reserved-3yr", "3yr")):
                same = by_provider.get(base.provider, {}).get(term)
                if same:
                    out[term] = _priced(term, _newest(same))
                    continue
                key = f"{base.provider.lower()}-{years}"
                discount = float(discounts.get(key, discounts[f"default-{years}"]))
                out[term] = CloudTermPrice(
                    term,
                    base.usd_per_gpu_hour * (1.0 - discount),
                    derived(
                        catalog_trace("cloud_prices", base),
                        assumption_trace(assumptions, "cloud-commitment-discount"),
                    ),
                    base.id,
                    base.provider,
                )
    for term in TERMS:
        if term not in out:
            same_term = [o for o in offers if o.term == term]
            out[term] = (
                _priced(term, _newest(same_term))
                if same_term
                else CloudTermPrice(term, None, UNPRICED)
            )
    override = inputs.spec.economics.price_overrides.cloud_usd_per_gpu_hour
    if override is not None:
        out[OVERRIDE] = CloudTermPrice(
            OVERRIDE, override, override_trace("economics.price_overrides.cloud_usd_per_gpu_hour")
        )
    return out


def market_range(inputs: CostInputs, catalog: Catalog) -> dict | None:
    """Spread of every catalog on-demand offer for this GPU (finance sees the whole market)."""
    gpu_id = inputs.gpu_sku.id if inputs.gpu_sku is not None else None
    offers = sorted(
        (p for p in catalog.cloud_prices.values() if p.gpu_id == gpu_id and p.term == "on-demand"),
        key=lambda p: p.usd_per_gpu_hour,
    )
    if not offers:
        return None
    prices = [p.usd_per_gpu_hour for p in offers]
    return {
        "offers": len(offers),
        "min_usd_per_gpu_hour": prices[0],
        "median_usd_per_gpu_hour": statistics.median(prices),
        "max_usd_per_gpu_hour": prices[-1],
        "cheapest_catalog_id": offers[0].id,
        "dearest_catalog_id": offers[-1].id,
    }


def design_cloud_term(inputs: CostInputs, prices: dict[str, CloudTermPrice]) -> str:
    """The term a cloud-owned design rents at."""
    economics = inputs.spec.economics
    if OVERRIDE in prices:
        return OVERRIDE
    if economics.ownership == "cloud-on-demand":
        return "on-demand"
    return "reserved-3yr" if economics.horizon_years >= 3 else "reserved-1yr"


def rental_line(
    inputs: CostInputs, price: CloudTermPrice, *, utilisation: float, pays_all_hours: bool
) -> CostLine:
    hours = inputs.gpu_count * 8760.0 * (1.0 if pays_all_hours else utilisation)
    usd = price.usd_per_gpu_hour
    return CostLine(
        part="cloud_rental",
        item=f"cloud GPU rental ({price.term})",
        catalog_id=price.catalog_id,
        quantity=hours,
        unit="GPU-hours/year",
        unit_price_usd=usd,
        total_usd=None if usd is None else usd * hours,
        trace=price.trace,
        note="every reserved hour" if pays_all_hours else "utilised GPU-hours only",
    )


def cloud_storage_lines(
    inputs: CostInputs, catalog: Catalog, assumptions: Assumptions
) -> list[CostLine]:
    """Storage services standing in for every site's owned shared tiers on the cloud side."""
    equivalents = assumptions.value("cloud-storage-equivalent")
    out = []
    for tier in inputs.tiers:
        if tier.kind == "local-nvme":
            continue  # comes with the GPU instance
        sku = catalog.storage.get(tier.sku) if tier.sku else None
        if sku is None or sku.price_usd_per_tb_month is None:
            sku = catalog.storage.get(equivalents.get(tier.kind, ""))
        if sku is None or sku.price_usd_per_tb_month is None:
            continue
        item = f"storage tier {tier.index} ({tier.kind}), site {tier.site}, as {sku.name}"
        out.append(storage_service_line(item, sku, tier.usable_tb, site=tier.site))
    return out
