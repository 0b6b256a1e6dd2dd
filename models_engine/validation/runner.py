"""Run every case through the public pipeline and score it, fitted and check-only apart.

The pipeline is the one `evaluate` runs for a single site: fabric (the network collectives run
on) -> storage_supply -> performance. The error of a case is model step / published step - 1;
the statistics are over |error|: median, 90th percentile (linear interpolation), max.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from models_engine.catalog import load_catalog
from models_engine.engines.fabric import evaluate_fabric
from models_engine.engines.performance import evaluate_performance
from models_engine.engines.storage import evaluate_storage_supply
from models_engine.hardware import resolve_gpu

from .design import NotExpressible, parsed_design
from .registry import Case


@dataclass(frozen=True)
class CaseResult:
    id: str
    family: str
    role: str
    gpu_sku: str
    gpus: int
    stack: str
    published_step_time_s: float
    model_step_time_s: float | None = None
    error: float | None = None  # model / published - 1
    memory_fits: bool | None = None
    not_expressible: str | None = None
    note: str = ""


@dataclass(frozen=True)
class ErrorStats:
    """|error| median, p90 and max of a group, and its bias: the median of the signed errors
    (model / published - 1), negative where the engine's values are under the published ones
    (for a step time: the engine is faster than the runs)."""

    n: int
    median: float | None
    p90: float | None
    max: float | None
    bias: float | None = None

    @classmethod
    def of(cls, errors: list[float]) -> ErrorStats:
        if not errors:
            return cls(0, None, None, None)
        signed = np.asarray(errors, dtype=float)
        magnitudes = np.abs(signed)
        return cls(
            n=len(errors),
            median=float(np.median(magnitudes)),
            p90=float(np.percentile(magnitudes, 90)),
            max=float(magnitudes.max()),
            bias=float(np.median(signed)),
        )


@dataclass(frozen=True)
class GroupSummary:
    name: str
    cases: int
    not_expressible: int
    fitted: ErrorStats
    check: ErrorStats


@dataclass(frozen=True)
class ValidationReport:
    results: tuple[CaseResult, ...]
    families: tuple[GroupSummary, ...]
    overall: GroupSummary
    # Distinct sources (URL) of the check-only cases: registered, and scored (expressible).
    check_sources: int = field(default=0)
    check_sources_scored: int = field(default=0)
    # Dense and MoE models apart ("dense models", "MoE models")
    by_model_class: tuple[GroupSummary, ...] = field(default=())

    def as_dict(self) -> dict:
        return asdict(self)


def evaluate_case(case: Case):
    """The case's PerformanceResult from the public pipeline, and the design's note."""
    spec, note = parsed_design(case)
    catalog = load_catalog()
    fabric = evaluate_fabric(spec, catalog)
    gpu = resolve_gpu(spec.compute, catalog)
    result = evaluate_performance(
        spec,
        gpu,
        catalog,
        fabric=fabric,
        storage_supply=evaluate_storage_supply(spec, catalog, fabric=fabric),
    )
    return result, note


def model_step(case: Case) -> tuple[float, bool, str]:
    """(model step time s, memory fits, note) from the public pipeline."""
    result, note = evaluate_case(case)
    return result.step_time_s, result.memory.fits, note


def run_case(case: Case) -> CaseResult:
    published = case.published_step_time_s
    base = {
        "id": case.id,
        "family": case.family,
        "role": case.role,
        "gpu_sku": case.gpu_sku,
        "gpus": case.gpus,
        "stack": case.stack.published,
        "published_step_time_s": published,
    }
    try:
        step, fits, note = model_step(case)
    except NotExpressible as exc:
        return CaseResult(**base, not_expressible=str(exc))
    return CaseResult(
        **base,
        model_step_time_s=step,
        error=step / published - 1,
        memory_fits=fits,
        note=note,
    )


def summarise(name: str, results: list[CaseResult]) -> GroupSummary:
    def errors(role: str) -> list[float]:
        return [r.error for r in results if r.role == role and r.error is not None]

    return GroupSummary(
        name=name,
        cases=len(results),
        not_expressible=sum(r.not_expressible is not None for r in results),
        fitted=ErrorStats.of(errors("fit")),
        check=ErrorStats.of(errors("check")),
    )


def is_moe(case: Case) -> bool:
    return bool(case.model.get("moe"))


def run_validation(cases: tuple[Case, ...] | list[Case]) -> ValidationReport:
    results = [run_case(case) for case in cases]
    families = sorted({r.family for r in results})
    pairs = [(c, r) for c, r in zip(cases, results, strict=True) if r.role == "check"]
    return ValidationReport(
        results=tuple(results),
        families=tuple(summarise(f, [r for r in results if r.family == f]) for f in families),
        overall=summarise("overall", results),
        by_model_class=tuple(
            summarise(name, [r for c, r in zip(cases, results, strict=True) if is_moe(c) == moe])
            for name, moe in (("dense models", False), ("MoE models", True))
        ),
        check_sources=len({c.source.url for c, _ in pairs}),
        check_sources_scored=len({c.source.url for c, r in pairs if r.error is not None}),
    )
