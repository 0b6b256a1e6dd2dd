"""Hardware catalog: GPU SKUs, systems, switches, NICs, optics, storage, cooling types,
regions, cloud prices and failure rates, each entry with the public source of its figures.

    from models_engine.catalog import load_catalog
    catalog = load_catalog()
    h100 = catalog.get("gpus", "h100-sxm-80gb")
    team = catalog.with_entries("gpus", [{...}])   # a new Catalog; the built-in one is unchanged

Data lives in `data/*.yaml` (one file per kind). Pure Python + pydantic + PyYAML.
"""

from models_engine.catalog.loader import (
    KINDS,
    Catalog,
    CatalogConflictError,
    CatalogError,
    CatalogLookupError,
    catalog_json_schema,
    load_catalog,
    normalize_kind,
)
from models_engine.catalog.models import (
    ENTRY_MODELS,
    CatalogEntry,
    CloudPrice,
    CoolingType,
    FailureRate,
    GpuSku,
    NicSku,
    OpticSku,
    Region,
    Source,
    StorageSku,
    SwitchSku,
    SystemSku,
)

__all__ = [
    "ENTRY_MODELS",
    "KINDS",
    "Catalog",
    "CatalogConflictError",
    "CatalogEntry",
    "CatalogError",
    "CatalogLookupError",
    "CloudPrice",
    "CoolingType",
    "FailureRate",
    "GpuSku",
    "NicSku",
    "OpticSku",
    "Region",
    "Source",
    "StorageSku",
    "SwitchSku",
    "SystemSku",
    "catalog_json_schema",
    "load_catalog",
    "normalize_kind",
]
