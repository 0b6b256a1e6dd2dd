"""Registry of published training runs, and the run that scores the engines against them.

Every published case the performance engine is compared with lives in `data/*.json`, one file per
family of runs (one source: a paper table, a benchmark README at a commit). Each case records its
source (title, URL, table/figure, row), the GPU and count, the model shape, the parallel layout,
the precision, the software stack as published, the metric as published (and, derived from it by
the stated formula, the step time), and its role:

- "fit": used to fix the engine's constants (the runs named in the `calibration` texts of
  `models_engine/engines/performance/efficiency_data.py`);
- "check": never used to tune anything; the out-of-sample score.

A case the spec cannot express yet (a software stack, a precision, an attention variant it has
no field for) is reported as "not expressible: <why>", never dropped.

Command line:

    python -m models_engine.validation                  # table per family, fitted vs check-only
    python -m models_engine.validation --json           # the same, machine-readable
    python -m models_engine.validation --family torchtitan-a100 --cases   # one family, per case

Python:

    from models_engine.validation import load_registry, run_validation
    report = run_validation(load_registry())
"""

from .evidence import (
    GRADE_RULES,
    DesignFacts,
    Evidence,
    design_evidence,
    design_facts,
    nearest_references,
)
from .panel import Summary, ValidationTable, build_table, table_of, validation_table
from .reference import Reference
from .registry import Case, load_registry
from .runner import ValidationReport, run_validation

__all__ = [
    "GRADE_RULES",
    "Case",
    "DesignFacts",
    "Evidence",
    "Reference",
    "Summary",
    "ValidationReport",
    "ValidationTable",
    "build_table",
    "design_evidence",
    "design_facts",
    "load_registry",
    "nearest_references",
    "run_validation",
    "table_of",
    "validation_table",
]
