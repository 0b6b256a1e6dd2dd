"""The design spec: a typed, versioned, validated description of one AI cluster design.

Pure pydantic; no catalog, Django or I/O at import time. Typical use::

    spec = parse_design(json.load(f))          # raises SpecValidationError(.errors)
    spec_hash(spec); design_to_dict(spec)      # canonical identity and plain data
    reference_errors(spec, load_catalog())     # catalog ids that do not exist
"""

from .compute import Compute, CustomGpu, NvlinkDomain
from .design import SPEC_VERSION, DesignSpec
from .diff import flatten_spec, spec_diff
from .economics import Economics, PriceOverrides
from .errors import SpecValidationError
from .fabric import AuxiliaryNetwork, Fabric, Oversubscription, RoceSettings
from .facility import Facility
from .migrations import migrate
from .parse import parse_design
from .references import reference_errors
from .regions import Dataset, Regions, Site, WanLink
from .schema import design_json_schema, field_docs
from .security import Security
from .serialize import canonical_json, design_to_dict, spec_hash
from .storage import CheckpointPolicy, Durability, Storage, StorageTier
from .workload import (
    InferenceTarget,
    LatencySlo,
    MixtureOfExperts,
    MultiLatentAttention,
    Parallelism,
    Workload,
)

__all__ = [
    "SPEC_VERSION",
    "AuxiliaryNetwork",
    "CheckpointPolicy",
    "Compute",
    "CustomGpu",
    "Dataset",
    "DesignSpec",
    "Durability",
    "Economics",
    "Fabric",
    "Facility",
    "InferenceTarget",
    "LatencySlo",
    "MixtureOfExperts",
    "MultiLatentAttention",
    "NvlinkDomain",
    "Oversubscription",
    "Parallelism",
    "PriceOverrides",
    "Regions",
    "RoceSettings",
    "Security",
    "Site",
    "SpecValidationError",
    "Storage",
    "StorageTier",
    "WanLink",
    "Workload",
    "canonical_json",
    "design_json_schema",
    "design_to_dict",
    "field_docs",
    "flatten_spec",
    "migrate",
    "parse_design",
    "reference_errors",
    "spec_diff",
    "spec_hash",
]
