"""A design's negotiated unit prices (economics.price_overrides.catalog_prices) applied to the
catalog before any engine runs, so every engine prices the same way and every priced line
traces back to the override."""

from models_engine.catalog import KINDS, Catalog

OVERRIDE_PATH = "economics.price_overrides.catalog_prices"


def _priced_entry(catalog: Catalog, entry_id: str):
    for kind in KINDS:
        entry = getattr(catalog, kind).get(entry_id)
        if entry is not None and "price_usd" in type(entry).model_fields:
            return kind, entry
    return None, None


def apply_catalog_prices(catalog: Catalog, overrides) -> tuple[Catalog, list[dict]]:
    """(catalog with the design's prices, errors for ids that name no priced entry)."""
    errors = []
    for index, override in enumerate(overrides):
        kind, entry = _priced_entry(catalog, override.catalog_id)
        if entry is None:
            errors.append(
                {
                    "path": f"{OVERRIDE_PATH}.{index}.catalog_id",
                    "message": f"'{override.catalog_id}' is not a priced catalog entry",
                    "allowed": None,
                }
            )
            continue
        source = {
            "title": f"Design price override ({OVERRIDE_PATH})",
            "ref": "design spec",
            "date": entry.price_date or entry.sources[0].date,
            "note": "stated",
        }
        updated = entry.model_dump(mode="json")
        updated.update(
            price_usd=override.unit_price_usd,
            price_date=entry.price_date or entry.sources[0].date,
            sources=[source, *updated["sources"]],
        )
        catalog = catalog.with_entries(kind, [updated], override=True)
    return catalog, errors
