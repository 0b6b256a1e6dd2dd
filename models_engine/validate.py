"""One validation entry point for the pipeline, the quick look, the CLI and the studio.

`validate_design(doc)` parses the spec (field errors name the field), applies the design's
price overrides to the catalog (with the team's own entries), checks every catalog reference
and resolves the GPU. Anything wrong raises `SpecValidationError` with every error found.
"""

from __future__ import annotations

from dataclasses import dataclass

from models_engine.catalog import Catalog, load_catalog
from models_engine.engines.cost.assumptions import assumption_errors, load_assumptions
from models_engine.engines.cost.opex import licence_errors
from models_engine.engines.fabric.intent import fabric_intent_errors
from models_engine.engines.facility import liquid_cooling_errors
from models_engine.hardware import GpuFigures, resolve_gpu
from models_engine.price_overrides import apply_catalog_prices
from models_engine.spec import DesignSpec, SpecValidationError, parse_design, reference_errors
from models_engine.spec.compute import NvlinkDomain


@dataclass(frozen=True)
class ValidDesign:
    spec: DesignSpec
    catalog: Catalog  # the team's catalog with the design's price overrides applied
    gpu: GpuFigures


def catalog_with(entries: dict[str, list[dict]] | None) -> Catalog:
    """The built-in catalog plus a team's own entries ({kind: [entry, ...]}); a team entry
    with a built-in id replaces it (the team's negotiated version of that item)."""
    catalog = load_catalog()
    for kind, items in (entries or {}).items():
        if items:
            catalog = catalog.with_entries(kind, items, override=True)
    return catalog


def validate_design(
    spec_doc: dict, catalog_entries: dict[str, list[dict]] | None = None
) -> ValidDesign:
    """The parsed design and its catalog, or SpecValidationError naming each bad field."""
    spec = parse_design(spec_doc)
    catalog, price_errors = apply_catalog_prices(
        catalog_with(catalog_entries), spec.economics.price_overrides.catalog_prices
    )
    unknown = reference_errors(spec, catalog) + price_errors
    if unknown:
        raise SpecValidationError(unknown)
    spec = with_vendor_scale_up(spec, catalog)
    assumptions = load_assumptions()
    mismatched = (
        liquid_cooling_errors(spec, catalog)
        + licence_errors(spec, catalog, assumptions)
        + assumption_errors(spec.economics.cost_assumptions, assumptions)
        + fabric_intent_errors(spec, catalog)
    )
    if mismatched:
        raise SpecValidationError(mismatched)
    return ValidDesign(spec=spec, catalog=catalog, gpu=resolve_gpu(spec.compute, catalog))


def with_vendor_scale_up(spec, catalog):
    """A design that does not state its scale-up domain gets its GPU's own: the spec's default
    (an 8-GPU NVSwitch board) is NVIDIA's, so for another vendor's GPU (AMD's xGMI boards) the
    domain becomes `custom` with the catalog's scale-up size. A stated kind is kept, and checked
    against the vendor by the fabric intent rules."""
    compute = spec.compute
    if compute.gpu_sku is None:
        return spec
    gpu = catalog.get("gpus", compute.gpu_sku)
    stated = (
        "nvlink_domain" in compute.model_fields_set
        and "kind" in compute.nvlink_domain.model_fields_set
    )
    if stated or gpu.vendor == "NVIDIA":
        return spec
    domain = NvlinkDomain(kind="custom", gpus=gpu.scale_up_domain_gpus)
    return spec.model_copy(update={"compute": compute.model_copy(update={"nvlink_domain": domain})})
