"""Cluster Studio engines: pure Python + numpy. Nothing here imports Django, DRF or Celery.

This module is the engine's public face: the studio imports only the names below (import-linter
refuses `studio.* -> models_engine.<submodule>`). `evaluate(spec_dict)` validates a design spec
and runs every engine in dependency order, returning plain JSON-ready data with units in the key
names; the typed result classes read that data back.
"""

from models_engine.catalog import KINDS, Catalog, CatalogError, load_catalog
from models_engine.catalog.measured import MeasurementError, gpu_entry_with_measurement
from models_engine.engines.cost.result import CostResult
from models_engine.engines.fabric.result import (
    BomLine,
    FabricResult,
    FabricTotals,
    ScaleOut,
    SiteFabric,
    SwitchCounts,
    WanPlan,
)
from models_engine.engines.facility.result import FacilityResult, FacilityTotals, SiteFacility
from models_engine.engines.network.addressing import PoolExhausted
from models_engine.engines.network.render import network_configs, network_configs_zip
from models_engine.engines.network.result import NetworkResult
from models_engine.engines.performance.result import PerformanceResult
from models_engine.engines.physical import cable_schedule, dcim_export_zip
from models_engine.engines.physical.result import PhysicalResult
from models_engine.engines.regions.result import RegionsResult, TrainingWithWan
from models_engine.engines.reliability.result import ReliabilityResult
from models_engine.engines.result_base import RESULT_SCHEMA_VERSION, EngineResult
from models_engine.engines.roadmap import (
    Action as RoadmapAction,
)
from models_engine.engines.roadmap import (
    MetricChange,
    Phase,
    RoadmapResult,
    Trigger,
    evaluate_roadmap,
)
from models_engine.engines.security import load_rules as load_security_rules
from models_engine.engines.security.result import SecurityResult
from models_engine.engines.storage.result import SiteStorage, StorageResult
from models_engine.engines.sweep.result import ScalingResult
from models_engine.pipeline import ENGINE_ORDER, evaluate, run_engines
from models_engine.presets import spec_from_system
from models_engine.price_overrides import entry_with_price, priced_entry
from models_engine.quick_look import quick_look
from models_engine.spec import (
    SPEC_VERSION,
    SpecValidationError,
    design_json_schema,
    design_to_dict,
    field_docs,
    flatten_spec,
    parse_design,
    spec_diff,
    spec_hash,
)
from models_engine.validate import ValidDesign, catalog_with, validate_design

__version__ = "0.1.0"

__all__ = [
    "ENGINE_ORDER",
    "KINDS",
    "RESULT_SCHEMA_VERSION",
    "SPEC_VERSION",
    "BomLine",
    "Catalog",
    "CatalogError",
    "CostResult",
    "EngineResult",
    "FabricResult",
    "FabricTotals",
    "FacilityResult",
    "FacilityTotals",
    "MeasurementError",
    "MetricChange",
    "NetworkResult",
    "PerformanceResult",
    "Phase",
    "PhysicalResult",
    "PoolExhausted",
    "RegionsResult",
    "ReliabilityResult",
    "RoadmapAction",
    "RoadmapResult",
    "ScaleOut",
    "ScalingResult",
    "SecurityResult",
    "SiteFabric",
    "SiteFacility",
    "SiteStorage",
    "SpecValidationError",
    "StorageResult",
    "SwitchCounts",
    "TrainingWithWan",
    "Trigger",
    "ValidDesign",
    "WanPlan",
    "__version__",
    "cable_schedule",
    "catalog_with",
    "dcim_export_zip",
    "design_json_schema",
    "design_to_dict",
    "entry_with_price",
    "evaluate",
    "evaluate_roadmap",
    "field_docs",
    "flatten_spec",
    "gpu_entry_with_measurement",
    "load_catalog",
    "load_security_rules",
    "network_configs",
    "network_configs_zip",
    "parse_design",
    "priced_entry",
    "quick_look",
    "run_engines",
    "spec_diff",
    "spec_from_system",
    "spec_hash",
    "validate_design",
]
