"""A design's negotiated unit prices (economics.price_overrides.catalog_prices) applied to the
catalog before any engine runs, so every engine prices the same way and every priced line
traces back to the override."""

from models_engine.catalog import KINDS, Catalog

OVERRIDE_PATH = "economics.price_overrides.catalog_prices"


def priced_entry(catalog: Catalog, entry_id: str):
    """(kind, entry) of a catalog entry that has a unit price field, or (None, None)."""
    for kind in KINDS:
        entry = getattr(catalog, kind).get(entry_id)
        if entry is not None and "price_usd" in type(entry).model_fields:
            return kind, entry
    return None, None


def apply_catalog_prices(catalog: Catalog, overrides) -> tuple[Catalog, list[dict]]:
    """(catalog with the design's prices, errors for ids that name no priced entry)."""
    errors = []
    for index, override in enumerate(overrides):
        kind, entry = priced_entry(catalog, override.catalog_id)
        if entry is None:
            errors.append(
                {
                    "path": f"{OVERRIDE_PATH}.{index}.catalog_id",
                    "message": f"'{override.catalog_id}' is not a priced catalog entry",
                    "allowed": None,
                }
            )
            continue
        date = entry.price_date or entry.sources[0].date
        source = {
            "title": f"Design price override ({OVERRIDE_PATH})",
            "ref": "design spec",
            "date": date,
            "note": "stated",
        }
        updated = entry_with_price(entry, override.unit_price_usd, source, date)
        catalog = catalog.with_entries(kind, [updated], override=True)
    return catalog, errors


def entry_with_price(entry, unit_price_usd: float, source: dict, price_date: str) -> dict:
    """The entry as data with a new unit price, the price's source first in its sources."""
    updated = entry.model_dump(mode="json")
    updated.update(
        price_usd=unit_price_usd, price_date=price_date, sources=[source, *updated["sources"]]
    )
    return updated
