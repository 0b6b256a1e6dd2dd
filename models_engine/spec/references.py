"""Checks of the catalog ids a design names against a loaded catalog.

Kept apart from validation so that parsing a design never loads the catalog; callers that
have a catalog (the engines, the studio) run this after parse_design."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .design import DesignSpec
from .errors import ErrorDict, error

_KIND_NOUN = {
    "gpus": "GPU",
    "systems": "system",
    "switches": "switch",
    "nics": "NIC",
    "storage": "storage product",
    "cooling": "cooling type",
    "regions": "region",
}


def _named_ids(spec: DesignSpec) -> Iterator[tuple[str, str | None, str]]:
    """(path, id, catalog collection) for every catalog reference in the design."""
    yield "compute.gpu_sku", spec.compute.gpu_sku, "gpus"
    yield "compute.system_sku", spec.compute.system_sku, "systems"
    yield "fabric.switch_sku", spec.fabric.switch_sku, "switches"
    yield "fabric.nic_sku", spec.fabric.nic_sku, "nics"
    yield "facility.cooling", spec.facility.cooling, "cooling"
    for index, tier in enumerate(spec.storage.tiers):
        yield f"storage.tiers.{index}.sku", tier.sku, "storage"
    for index, site in enumerate(spec.regions.sites):
        yield f"regions.sites.{index}.catalog_region_id", site.catalog_region_id, "regions"


def reference_errors(spec: DesignSpec, catalog: Any) -> list[ErrorDict]:
    """Errors for ids that the catalog does not hold. `catalog` needs dict attributes
    gpus, systems, switches, nics, storage, cooling and regions keyed by id."""
    found: list[ErrorDict] = []
    for path, item_id, collection in _named_ids(spec):
        if item_id is None:
            continue
        known = getattr(catalog, collection, None) or {}
        if item_id not in known:
            noun = _KIND_NOUN[collection]
            found.append(
                error(
                    path,
                    f"unknown {noun} '{item_id}' (not in the catalog)",
                    {"one_of": sorted(known)},
                )
            )
    return found
