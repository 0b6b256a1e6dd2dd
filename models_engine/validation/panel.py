"""The validation panel's table: every published reference the engines are checked against, as
`Reference` rows, with fitted vs check-only statistics per engine and per family.

Built once per process (`validation_table()`, a few seconds: the registry runs ~190 published
training runs through the pipeline). Tests and "what if" callers pass their own registry cases to
`build_table(cases)` instead."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from models_engine.catalog import load_catalog

from .published import other_engine_references
from .reference import Reference
from .registry import Case, load_registry
from .runner import CaseResult, ErrorStats, run_case

# The headline numbers that are the performance engine's step time or follow from it by
# tokens per step (throughput, MFU, time to train = tokens to train / throughput).
STEP_TIME_KEYS = ("step_time_s", "tokens_per_s", "mfu", "time_to_train_days")
# Reference.model_class -> how summaries name it
MODEL_CLASS_NAMES = {"dense": "dense models", "moe": "MoE models"}


def model_class_of(model: dict) -> str:
    """A model shape's class: "moe" where it routes tokens to experts, else "dense"."""
    return "moe" if model.get("moe") else "dense"


@dataclass(frozen=True)
class Summary:
    """|error| statistics of one group of references, fitted and check-only apart."""

    name: str
    engine: str
    references: int
    not_expressible: int
    fitted: ErrorStats
    check: ErrorStats

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "engine": self.engine,
            "references": self.references,
            "not_expressible": self.not_expressible,
            "fitted": self.fitted.__dict__,
            "check": self.check.__dict__,
        }


@dataclass(frozen=True)
class ValidationTable:
    references: tuple[Reference, ...]
    by_engine: tuple[Summary, ...]
    by_family: tuple[Summary, ...]
    overall: Summary
    # Per engine, quantity and model class where references carry one (step times: dense
    # and MoE models apart, whose errors differ)
    by_model_class: tuple[Summary, ...] = ()

    def as_dict(self) -> dict:
        return {
            "references": [r.as_dict() for r in self.references],
            "by_engine": [s.as_dict() for s in self.by_engine],
            "by_model_class": [s.as_dict() for s in self.by_model_class],
            "by_family": [s.as_dict() for s in self.by_family],
            "overall": self.overall.as_dict(),
        }


LAYOUT_LABELS = {"tp": "TP", "pp": "PP", "virtual_stages": "VP", "cp": "CP", "ep": "EP"}


def _measured(case: Case) -> str:
    """What the case states: metric, model, GPUs, batch, precision, the layout's parallel
    sizes (VP and EP where above 1) and the stack options the source shows the run using."""
    layout = " ".join(
        f"{label}{case.layout[key]}"
        for key, label in LAYOUT_LABELS.items()
        if key in case.layout and (key in ("tp", "pp", "cp") or case.layout[key] > 1)
    )
    options = ", ".join(f"{name} {value}".lower() for name, value in case.stack.options)
    stack = f"; {case.stack.engine} ({options})" if options else ""
    return (
        f"{case.metric.kind.replace('_', ' ')} {case.metric.value:g} -> step time; "
        f"{case.model_name}, {case.gpus:,} x {case.gpu_sku}, seq {case.sequence_length:,}, "
        f"GBS {case.global_batch_sequences:,}, {case.precision}, {layout}".rstrip(", ")
        + stack
    )


def step_time_reference(case: Case, result: CaseResult) -> Reference:
    gpu = load_catalog().gpus.get(case.gpu_sku)
    notes = [n for n in (result.note, case.notes) if n]
    if result.memory_fits is False:
        notes.insert(0, "the engine says it does not fit in memory")
    return Reference(
        id=case.id,
        engine="performance",
        family=case.family,
        quantity="step time",
        unit="s",
        measured=_measured(case),
        source_title=case.source.title,
        source_url=case.source.url,
        where=f"{case.table}, {case.row}",
        role=case.role,
        published=result.published_step_time_s,
        model=result.model_step_time_s,
        error=result.error,
        gpu_sku=case.gpu_sku,
        gpu_architecture=gpu.architecture if gpu else None,
        gpus=case.gpus,
        stack=case.stack.engine,
        model_class=model_class_of(case.model),
        headline_keys=STEP_TIME_KEYS,
        not_expressible=result.not_expressible,
        note="; ".join(notes),
    )


def summarise(name: str, engine: str, references: Iterable[Reference]) -> Summary:
    refs = list(references)

    def errors(role: str) -> list[float]:
        return [r.error for r in refs if r.role == role and r.error is not None]

    return Summary(
        name=name,
        engine=engine,
        references=len(refs),
        not_expressible=sum(r.not_expressible is not None for r in refs),
        fitted=ErrorStats.of(errors("fit")),
        check=ErrorStats.of(errors("check")),
    )


def table_of(references: Iterable[Reference]) -> ValidationTable:
    refs = tuple(references)
    # Per engine and quantity: a step time and a memory count are different yardsticks.
    engines = sorted({(r.engine, r.quantity) for r in refs})
    families = sorted({(r.engine, r.family) for r in refs})
    return ValidationTable(
        references=refs,
        by_engine=tuple(
            summarise(f"{e}: {q}", e, (r for r in refs if (r.engine, r.quantity) == (e, q)))
            for e, q in engines
        ),
        by_family=tuple(summarise(f, e, (r for r in refs if r.family == f)) for e, f in families),
        overall=summarise("overall", "all", refs),
        by_model_class=by_model_class(refs),
    )


def by_model_class(refs: tuple[Reference, ...]) -> tuple[Summary, ...]:
    """Per engine and quantity, the references of each model class apart."""
    groups = sorted({(r.engine, r.quantity, r.model_class) for r in refs if r.model_class})
    return tuple(
        summarise(
            f"{engine}: {quantity}, {MODEL_CLASS_NAMES[cls]}",
            engine,
            (r for r in refs if (r.engine, r.quantity, r.model_class) == (engine, quantity, cls)),
        )
        for engine, quantity, cls in groups
    )


def build_table(cases: Iterable[Case] | None = None) -> ValidationTable:
    """Score `cases` (default: the whole registry) and the other engines' references."""
    cases = load_registry() if cases is None else tuple(cases)
    step_rows = [step_time_reference(case, run_case(case)) for case in cases]
    return table_of([*step_rows, *other_engine_references()])


@cache
def validation_table() -> ValidationTable:
    """The registry's table, computed once per process."""
    return build_table()
