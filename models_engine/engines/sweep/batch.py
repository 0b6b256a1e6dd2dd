"""Evaluate a range of variants at once.

Variants are grouped by their structural axes (every axis but `definition.VECTOR_PATHS`). Each
group runs the engines' own entry functions, as the pipeline does, but only the steps the
sweep's metrics read (`steps_for`: no physical plan, no scaling curve, the security engine and
its network plan only when a constraint reads the score) and the reliability engine without its
Monte Carlo (the metrics read its closed-form time to train). The vectorised axes then go
through the owners' own formulas as numpy arrays:
- utilisation, electricity price and PUE through the cost engine's levers
  (`engines/cost/levers.py`, multilinear over the engine's own scenario at the corners);
- PUE through the facility engine's energy formula (`facility.power.energy_block`: facility kW
  = IT kW x PUE per site) for the facility power.
The engines run at the group's highest swept PUE and price; the levers take them from there.

Engine results are cached step by step (`EngineCache`, one per worker process), keyed by the
spec without its cost-only economics (`engine_slice`) and without the reuse axes
(`REUSE_READERS`: spec paths only some steps read), plus the values of those paths the step or
anything it consumes reads. So variants that differ only in the checkpoint interval share
fabric, network plan and performance and re-run storage, facility, regions and reliability
(< 1 ms together); variants that differ in cost-only inputs (depreciation, discount rate,
prices, licences) share every engine, and the cost engine then runs once per group. Nothing is
re-derived: each metric is read from its owner's typed result or formula.
"""

from __future__ import annotations

import copy
import functools
import hashlib
import io
import json
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from models_engine.engines.cost.assumptions import design_overrides
from models_engine.engines.cost.levers import cost_over_levers
from models_engine.engines.facility.power import energy_block
from models_engine.engines.regions.site_fill import fill_sites
from models_engine.pipeline import STEPS, EvaluationContext, steps_with_inputs
from models_engine.sites import site_slices
from models_engine.spec import SpecValidationError
from models_engine.validate import validate_design

from .definition import (
    METRIC_STEPS,
    METRICS,
    POWER_PRICE_PATH,
    PUE_PATH,
    UTILISATION_PATH,
    SweepDefinition,
)
from .variants import VariantError, VariantGrid, variant_doc

# Economics fields only the cost engine reads (reliability and storage read horizon_years, the
# security checks read ownership; the catalog price overrides change the catalog every engine
# reads).
COST_ONLY_ECONOMICS = (
    "utilisation",
    "depreciation_years",
    "discount_rate",
    "currency",
    "gpu_software_licence",
    "cost_assumptions",
)
COST_ONLY_PRICE_OVERRIDES = (
    "gpu_price_usd",
    "system_price_usd",
    "power_usd_per_kwh",
    "colocation_usd_per_kw_month",
    "staff_usd_per_fte_year",
    "cloud_usd_per_gpu_hour",
)
# Spec paths that only these steps read (grep the engines: the storage engine's duty-cycle
# finding and the reliability engine's checkpoint block read the interval; only the facility
# engine's energy block reads the PUE). A step that consumes one of them re-runs with it.
REUSE_READERS = {
    "storage.checkpoint.interval_min": ("storage", "reliability"),
    PUE_PATH: ("facility",),
}
CACHE_ENTRIES = 2048
VALID = -1


@dataclass
class ChunkColumns:
    """Metrics of variants start..stop-1 (NaN where invalid); `invalid[i]` indexes `reasons`,
    or is -1 for a variant the engines evaluated."""

    start: int
    stop: int
    metrics: dict[str, np.ndarray]
    invalid: np.ndarray
    reasons: list[str]

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer,
            span=np.array([self.start, self.stop], dtype=np.int64),
            invalid=self.invalid,
            reasons=np.array(json.dumps(self.reasons)),
            **{f"m_{name}": values for name, values in self.metrics.items()},
        )
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> ChunkColumns:
        with np.load(io.BytesIO(data)) as arrays:
            start, stop = (int(v) for v in arrays["span"])
            return cls(
                start=start,
                stop=stop,
                metrics={k[2:]: arrays[k] for k in arrays.files if k.startswith("m_")},
                invalid=arrays["invalid"],
                reasons=json.loads(str(arrays["reasons"])),
            )


def _digest(doc) -> str:
    return hashlib.sha256(json.dumps(doc, sort_keys=True, default=str).encode()).hexdigest()


def engine_slice(doc: dict) -> dict:
    """The part of a spec document that the engines other than cost read."""
    out = copy.deepcopy(doc)
    economics = out.get("economics") or {}
    for key in COST_ONLY_ECONOMICS:
        economics.pop(key, None)
    overrides = economics.get("price_overrides") or {}
    for key in COST_ONLY_PRICE_OVERRIDES:
        overrides.pop(key, None)
    return out


def _pop_path(doc: dict, path: str):
    """Remove a dotted path from `doc` and return its value (None when absent)."""
    *parents, last = path.split(".")
    node = doc
    for key in parents:
        node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            return None
    return node.pop(last, None) if isinstance(node, dict) else None


def steps_for(definition: SweepDefinition) -> tuple[str, ...]:
    """The engine steps a sweep runs: those its metrics read, and what they consume."""
    reads = METRIC_STEPS + (("security",) if definition.reads_security() else ())
    return steps_with_inputs(reads)


def _step_reads() -> dict[str, set[str]]:
    """Each step's reuse paths: those it reads itself or through what it consumes."""
    reads: dict[str, set[str]] = {}
    for step in STEPS:
        own = {path for path, readers in REUSE_READERS.items() if step.name in readers}
        reads[step.name] = own.union(*(reads[name] for name in step.consumes))
    return reads


STEP_READS = _step_reads()


class EngineCache:
    """Least-recently-used engine results by input slice (one per worker process)."""

    def __init__(self, size: int = CACHE_ENTRIES):
        self.size = size
        self.entries: OrderedDict[str, object] = OrderedDict()

    def get_or_run(self, key: str, run):
        if key in self.entries:
            self.entries.move_to_end(key)
            return self.entries[key]
        value = run()
        self.entries[key] = value
        if len(self.entries) > self.size:
            self.entries.popitem(last=False)
        return value


_PROCESS_CACHE = EngineCache()


@dataclass(frozen=True)
class SweepInputs:
    """Everything a chunk needs besides its index range."""

    definition: SweepDefinition
    base_doc: dict
    catalog_entries: dict | None = None
    accepted_risks: tuple = ()


def _run_step(step, ctx: EvaluationContext):
    needed = {name: ctx.results[name] for name in step.consumes}
    if step.name == "reliability":  # the closed form only: no metric reads the Monte Carlo
        return functools.partial(step.run, monte_carlo_runs=0)(ctx, **needed)
    return step.run(ctx, **needed)


def _engine_results(inputs: SweepInputs, doc: dict, cache: EngineCache):
    """Validated design plus the typed result of each step the sweep runs (cached by slice)."""
    design = validate_design(doc, inputs.catalog_entries)
    spec = fill_sites(design.spec, design.catalog)
    ctx = EvaluationContext(
        spec=spec,
        catalog=design.catalog,
        gpu=design.gpu,
        sites=site_slices(spec),
        accepted_risks=list(inputs.accepted_risks),
    )
    core = engine_slice(doc)
    reused = {path: _pop_path(core, path) for path in REUSE_READERS}
    core_key = _digest(
        {"doc": core, "catalog": inputs.catalog_entries, "risks": inputs.accepted_risks}
    )
    wanted = steps_for(inputs.definition)
    for step in STEPS:
        if step.name in wanted:
            values = sorted((path, repr(reused[path])) for path in STEP_READS[step.name])
            key = f"{step.name}:{core_key}:{values}"
            ctx.results[step.name] = cache.get_or_run(key, lambda s=step: _run_step(s, ctx))
    return ctx


def facility_power_mw(facility, pue: np.ndarray | None) -> np.ndarray | float:
    """The facility engine's facility power (MW) at each swept PUE: its energy formula on each
    site's IT power (every site takes the design's PUE when it is swept)."""
    if pue is None:
        return facility.totals.facility_kw / 1000.0
    kw = np.zeros_like(pue, dtype=float)
    for site in facility.sites:
        if site.power.pue_source != "given":
            raise ValueError(f"{PUE_PATH}: site {site.site_id} does not take the design's PUE")
        kw = kw + energy_block(site.power.it_kw.model_dump(), pue, "given")["facility_kw"]
    return kw / 1000.0


def _group_metrics(inputs: SweepInputs, doc: dict, levers: dict, cache: EngineCache) -> dict:
    ctx = _engine_results(inputs, doc, cache)
    u, s, pue = levers[UTILISATION_PATH], levers[POWER_PRICE_PATH], levers[PUE_PATH]
    if u is None:  # utilisation not swept: the design's own
        u = np.full(s.shape, ctx.spec.economics.utilisation)
    r = ctx.results
    costs = cost_over_levers(
        ctx.spec,
        ctx.catalog,
        utilisation=u,
        power_price_scale=s,
        pue=pue,
        assumption_overrides=design_overrides(ctx.spec.economics.cost_assumptions),
        **{
            name: r[name]
            for name in ("fabric", "facility", "storage", "performance", "regions", "reliability")
        },
    )
    reliability = r["reliability"]
    ttt = reliability.time_to_train.with_failures_days if reliability.time_to_train else np.nan
    score = r["security"].score.overall_pct if "security" in r else None
    carbon = costs.carbon_tco2e_per_year
    columns = {
        "time_to_train_days": ttt,
        "goodput": reliability.goodput,
        "facility_power_mw": facility_power_mw(r["facility"], pue),
        "security_score_pct": np.nan if score is None else score,
        "fits_in_hbm": 1.0 if r["performance"].memory.fits else 0.0,
        "capex_usd": costs.capex_usd,
        "carbon_tco2e_per_year": np.nan if carbon is None else carbon,
        "tco_usd": costs.tco_usd,
        "training_run_usd": costs.training_run_usd,
        "usd_per_gpu_hour": costs.usd_per_gpu_hour,
    }
    return {name: np.broadcast_to(value, u.shape).astype(float) for name, value in columns.items()}


def _reason(exc: Exception) -> str:
    if isinstance(exc, SpecValidationError):
        first = exc.errors[0]
        return f"{first['path'] or '(root)'}: {first['message']}"
    return str(exc)


def evaluate_chunk(
    inputs: SweepInputs, start: int, stop: int, cache: EngineCache | None = None
) -> ChunkColumns:
    """Every metric of variants start..stop-1 (see module docstring)."""
    cache = cache or _PROCESS_CACHE
    grid = VariantGrid.of(inputs.definition)
    indices = np.arange(start, stop, dtype=np.int64)
    digits = grid.digits(indices)
    n = indices.size
    metrics = {name: np.full(n, np.nan) for name in METRICS}
    invalid = np.full(n, VALID, dtype=np.int32)
    reasons: list[str] = []
    u_all, _ = _vector_values(grid, digits, UTILISATION_PATH)
    p_all, p_values = _vector_values(grid, digits, POWER_PRICE_PATH)
    pue_all, pue_values = _vector_values(grid, digits, PUE_PATH)
    # The engines run at the largest swept price and PUE; each variant's levers move from there.
    reference = {
        path: float(np.max(values))
        for path, values in ((POWER_PRICE_PATH, p_values), (PUE_PATH, pue_values))
        if values is not None
    }
    # The vectorised axes are the fastest digits: a group is a contiguous run of indices.
    groups = indices // grid.vector_block
    _, firsts, counts = np.unique(groups, return_index=True, return_counts=True)
    for first, count in zip(firsts, counts, strict=True):
        rows = slice(int(first), int(first + count))
        assignment = {**grid.assignment(int(indices[first])), **reference}
        levers = {
            UTILISATION_PATH: None if u_all is None else u_all[rows],
            POWER_PRICE_PATH: np.ones(int(count))
            if p_all is None
            else _scale(p_all[rows], reference[POWER_PRICE_PATH]),
            PUE_PATH: None if pue_all is None else pue_all[rows],
        }
        try:
            doc = variant_doc(inputs.base_doc, assignment)
            values = _group_metrics(inputs, doc, levers, cache)
        except (VariantError, ValueError) as exc:
            reason = _reason(exc)
            if reason not in reasons:
                reasons.append(reason)
            invalid[rows] = reasons.index(reason)
            continue
        for name, column in values.items():
            metrics[name][rows] = column
    return ChunkColumns(start=start, stop=stop, metrics=metrics, invalid=invalid, reasons=reasons)


def _vector_values(grid: VariantGrid, digits: np.ndarray, path: str):
    """(each variant's value, the axis's values) of a vectorised axis; (None, None) if unswept."""
    if path not in grid.paths:
        return None, None
    axis = grid.paths.index(path)
    values = np.asarray(grid.values[axis], dtype=float)
    return values[digits[:, axis]], values


def _scale(prices: np.ndarray, reference: float) -> np.ndarray:
    return np.zeros_like(prices) if reference == 0 else prices / reference


__all__ = [
    "ChunkColumns",
    "EngineCache",
    "SweepInputs",
    "engine_slice",
    "evaluate_chunk",
    "facility_power_mw",
    "steps_for",
]
