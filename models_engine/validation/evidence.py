"""The evidence grade of a design's headline numbers: the published references nearest to the
design (same GPU generation, similar scale, same software stack) and the engine's error there.

Nearness. A reference is *near* a design when it measures the same quantity and, for
cluster-specific quantities (a step time, not an analytical memory count), ran on the same GPU
generation (catalog `architecture`) with a GPU count within NEAR_SCALE_FACTOR of the design's,
and trained a model of the design's class (dense or mixture of experts: the engine's errors on
the two differ, so a dense run is no evidence for an MoE design).
Check-only references come first (they are the out-of-sample evidence), then the same
software stack, then the smallest scale ratio. At most NEAREST of them are shown.

The grade (GRADE_RULES, shown on the validation page):
  A  at least 2 check-only references near, every one within 10 %, one on the same stack
  B  at least 1 check-only reference near, median |error| of the near ones within 20 %
  C  references near, but only fitted ones, or check-only errors above B's bound
  D  references for the quantity exist, none near this design
  -  no published reference for this quantity
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import median

from models_engine.catalog import load_catalog

from .panel import ValidationTable, validation_table
from .reference import Reference

NEAREST = 5
NEAR_SCALE_FACTOR = 8.0  # GPU count within 8x either way ("similar scale")
A_MAX_ERROR = 0.10
A_MIN_CHECKS = 2
B_MEDIAN_ERROR = 0.20

GRADE_RULES = {
    "A": (
        f"at least {A_MIN_CHECKS} check-only references near the design (same GPU generation, "
        f"same model class, dense or MoE, GPU count within {NEAR_SCALE_FACTOR:g}x), every one "
        f"within {A_MAX_ERROR:.0%}, one of them on the same software stack"
    ),
    "B": (
        "at least 1 check-only reference near the design, median |error| of the near "
        f"check-only references within {B_MEDIAN_ERROR:.0%}"
    ),
    "C": "references near the design, but only fitted ones, or check-only errors above B's bound",
    "D": "references for this quantity exist, none near this design (other GPU generation, "
    "model class or scale)",
    "-": "no published reference for this quantity",
}


@dataclass(frozen=True)
class DesignFacts:
    """What nearness compares: the design's GPU, its generation, GPU count, stack and the
    class of the model it trains ("dense" / "moe"; None: no training workload)."""

    gpu_sku: str | None
    gpu_architecture: str | None
    gpus: int | None
    stack: str | None
    model_class: str | None = None


@dataclass(frozen=True)
class Evidence:
    metric_key: str
    grade: str  # "A" | "B" | "C" | "D" | "-"
    text: str  # what the reader sees beside the number
    reference_ids: tuple[str, ...] = ()  # the nearest references (the panel filters on them)
    check_errors: tuple[float, ...] = ()  # errors of the near check-only references
    engines: tuple[str, ...] = ()  # the engines whose references exist for this number

    @property
    def rule(self) -> str:
        return GRADE_RULES[self.grade]


def design_facts(spec: dict, *, stack: str | None = None) -> DesignFacts:
    """The facts of a design document (as stored); `stack` is the software stack the
    performance engine ran it with (its result's `software_stack.name`)."""
    compute = spec.get("compute") or {}
    sku = compute.get("gpu_sku")
    entry = load_catalog().gpus.get(sku) if isinstance(sku, str) else None
    custom = compute.get("custom_gpu") or {}
    architecture = entry.architecture if entry else custom.get("architecture")
    gpus = compute.get("gpu_count")
    workload = spec.get("workload")
    return DesignFacts(
        gpu_sku=sku if isinstance(sku, str) else None,
        gpu_architecture=architecture,
        gpus=gpus if isinstance(gpus, int) else None,
        stack=stack,
        model_class=("moe" if workload.get("moe") else "dense")
        if isinstance(workload, dict)
        else None,
    )


def _scale_ratio(design: DesignFacts, ref: Reference) -> float:
    if not ref.cluster_specific:
        return 1.0
    if not design.gpus or not ref.gpus:
        return math.inf
    return max(design.gpus, ref.gpus) / min(design.gpus, ref.gpus)


def is_near(design: DesignFacts, ref: Reference) -> bool:
    if not ref.cluster_specific:
        return True
    same_generation = (
        design.gpu_architecture is not None and ref.gpu_architecture == design.gpu_architecture
    )
    other_class = None not in (design.model_class, ref.model_class) and (
        design.model_class != ref.model_class
    )
    return same_generation and not other_class and _scale_ratio(design, ref) <= NEAR_SCALE_FACTOR


def _same_stack(design: DesignFacts, ref: Reference) -> bool:
    return ref.stack is None or ref.stack == design.stack


def nearest_references(
    design: DesignFacts, metric_key: str, table: ValidationTable | None = None
) -> list[Reference]:
    """The scored references of `metric_key` near the design, nearest first (at most NEAREST)."""
    table = table or validation_table()
    near = [
        r
        for r in table.references
        if metric_key in r.headline_keys and r.scored and is_near(design, r)
    ]
    near.sort(
        key=lambda r: (
            r.role != "check",  # out-of-sample evidence first
            not _same_stack(design, r),
            _scale_ratio(design, r),
            r.id,
        )
    )
    return near[:NEAREST]


def grade_of(design: DesignFacts, near: list[Reference]) -> str:
    checks = [abs(r.error) for r in near if r.role == "check"]
    same_stack_check = any(r.role == "check" and _same_stack(design, r) for r in near)
    if len(checks) >= A_MIN_CHECKS and max(checks) <= A_MAX_ERROR and same_stack_check:
        return "A"
    if checks and median(checks) <= B_MEDIAN_ERROR:
        return "B"
    return "C"


def _describe(design: DesignFacts, grade: str, near: list[Reference], quantity: str) -> str:
    checks = [abs(r.error) for r in near if r.role == "check"]
    fitted = [abs(r.error) for r in near if r.role == "fit"]
    parts = []
    if checks:
        parts.append(
            f"{len(checks)} check-only, median |error| {median(checks):.0%}, max {max(checks):.0%}"
        )
    if fitted:
        parts.append(f"{len(fitted)} fitted, median |error| {median(fitted):.0%}")
    where = ", ".join(sorted({r.family for r in near}))
    return f"{grade}: {quantity} vs {len(near)} nearest published ({'; '.join(parts)}) — {where}"


def _for_class(design: DesignFacts, candidates: list[Reference]) -> str:
    """' for an MoE model' where the quantity's references depend on the model class."""
    if not any(r.model_class for r in candidates):
        return ""
    return {"moe": " for an MoE model", "dense": " for a dense model"}.get(
        design.model_class or "", ""
    )


def metric_evidence(
    design: DesignFacts, metric_key: str, table: ValidationTable | None = None
) -> Evidence:
    table = table or validation_table()
    candidates = [r for r in table.references if metric_key in r.headline_keys and r.scored]
    if not candidates:
        return Evidence(metric_key, "-", "no published reference")
    near = nearest_references(design, metric_key, table)
    quantities = ", ".join(sorted({r.quantity for r in candidates}))
    if not near:
        return Evidence(
            metric_key,
            "D",
            engines=tuple(sorted({r.engine for r in candidates})),
            text=(
                f"D: {len(candidates)} published references ({quantities}), none on this GPU "
                f"generation at a similar scale{_for_class(design, candidates)}"
            ),
        )
    grade = grade_of(design, near)
    return Evidence(
        metric_key,
        grade,
        _describe(design, grade, near, near[0].quantity),
        reference_ids=tuple(r.id for r in near),
        check_errors=tuple(r.error for r in near if r.role == "check"),
        engines=tuple(sorted({r.engine for r in near})),
    )


def design_evidence(
    design: DesignFacts, metric_keys: list[str], table: ValidationTable | None = None
) -> dict[str, Evidence]:
    """The evidence of each headline number of a design, by headline key."""
    table = table or validation_table()
    return {key: metric_evidence(design, key, table) for key in metric_keys}
