"""Cluster Studio engines: pure Python + numpy. Nothing here imports Django, DRF or Celery.

This module is the engine's public face: the studio imports only the names below (import-linter
refuses `studio.* -> models_engine.<submodule>`). `evaluate(spec_dict)` validates a design spec
and runs every engine in dependency order, returning plain JSON-ready data with units in the key
names; the typed result classes read that data back.
"""

from models_engine.catalog import KINDS, Catalog, CatalogError, load_catalog
from models_engine.catalog.measured import MeasurementError, gpu_entry_with_measurement
from models_engine.engines.cost.delta import cost_delta
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
from models_engine.engines.network.archive import network_configs, network_configs_zip
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
from models_engine.engines.sweep.batch import (
    ChunkColumns as SweepChunkColumns,
)
from models_engine.engines.sweep.batch import (
    EngineCache as SweepEngineCache,
)
from models_engine.engines.sweep.batch import (
    SweepInputs,
)
from models_engine.engines.sweep.batch import (
    evaluate_chunk as sweep_evaluate_chunk,
)
from models_engine.engines.sweep.definition import (
    METRICS as SWEEP_METRICS,
)
from models_engine.engines.sweep.definition import (
    OBJECTIVES as SWEEP_OBJECTIVES,
)
from models_engine.engines.sweep.definition import (
    SweepDefinition,
)
from models_engine.engines.sweep.reduce import feasibility as sweep_feasibility
from models_engine.engines.sweep.reduce import reduce_sweep
from models_engine.engines.sweep.result import ScalingResult
from models_engine.engines.sweep.variants import VariantError, VariantGrid, variant_doc
from models_engine.pipeline import ENGINE_ORDER, evaluate, evaluate_headline, run_engines
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
from models_engine.validation import (
    GRADE_RULES,
    DesignFacts,
    Evidence,
    Reference,
    ValidationTable,
    design_evidence,
    design_facts,
    table_of,
    validation_table,
)

__version__ = "0.1.0"

__all__ = [
    "ENGINE_ORDER",
    "GRADE_RULES",
    "KINDS",
    "RESULT_SCHEMA_VERSION",
    "SPEC_VERSION",
    "SWEEP_METRICS",
    "SWEEP_OBJECTIVES",
    "BomLine",
    "Catalog",
    "CatalogError",
    "CostResult",
    "DesignFacts",
    "EngineResult",
    "Evidence",
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
    "Reference",
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
    "SweepChunkColumns",
    "SweepDefinition",
    "SweepEngineCache",
    "SweepInputs",
    "SwitchCounts",
    "TrainingWithWan",
    "Trigger",
    "ValidDesign",
    "ValidationTable",
    "VariantError",
    "VariantGrid",
    "WanPlan",
    "__version__",
    "cable_schedule",
    "catalog_with",
    "cost_delta",
    "dcim_export_zip",
    "design_evidence",
    "design_facts",
    "design_json_schema",
    "design_to_dict",
    "entry_with_price",
    "evaluate",
    "evaluate_headline",
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
    "reduce_sweep",
    "run_engines",
    "spec_diff",
    "spec_from_system",
    "spec_hash",
    "sweep_evaluate_chunk",
    "sweep_feasibility",
    "table_of",
    "validate_design",
    "validation_table",
    "variant_doc",
]
