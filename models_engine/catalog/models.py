"""The pydantic models of every catalog entry kind (one import point).

All models are frozen, reject unknown fields, put units in field names or descriptions and
require at least one `Source`.
"""

from models_engine.catalog.base import CatalogEntry, Source
from models_engine.catalog.compute import CloudPrice, GpuSku, SystemSku
from models_engine.catalog.facility import CoolingType, FailureRate, Region, StorageSku
from models_engine.catalog.network import NicSku, OpticSku, SwitchSku

# kind name (catalog attribute and YAML file stem) -> entry model
ENTRY_MODELS: dict[str, type[CatalogEntry]] = {
    "gpus": GpuSku,
    "systems": SystemSku,
    "switches": SwitchSku,
    "nics": NicSku,
    "optics": OpticSku,
    "storage": StorageSku,
    "cooling": CoolingType,
    "regions": Region,
    "cloud_prices": CloudPrice,
    "failure_rates": FailureRate,
}

__all__ = [
    "ENTRY_MODELS",
    "CatalogEntry",
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
]
