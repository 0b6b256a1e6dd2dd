"""Evaluate a range of variants at once.

Variants are grouped by their structural axes (every axis but the cost engine's array inputs,
`definition.VECTOR_PATHS`). Each group runs the engines' own entry functions once, as the
pipeline does; utilisation and electricity price then go through the cost engine as numpy arrays
(`engines/cost/levers.py`). Engine results are cached by the engine's input slice: every engine
but cost reads the spec without its cost-only economics fields (`engine_slice`), so variants that
differ only in depreciation, discount rate, licences or prices share fabric, performance,
storage, facility, regions, reliability and security (ownership is in the slice: the security
checks read it); the cost engine then runs for each group (~10 ms: its scenario at the four
lever corners). Nothing is re-derived: each metric is read from its owner's typed result.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from models_engine.engines.cost.assumptions import design_overrides
from models_engine.engines.cost.levers import cost_over_levers
from models_engine.engines.regions.site_fill import fill_sites
from models_engine.pipeline import STEPS, EvaluationContext
from models_engine.sites import site_slices
from models_engine.spec import SpecValidationError
from models_engine.validate import validate_design

from .definition import METRICS, POWER_PRICE_PATH, UTILISATION_PATH, SweepDefinition
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
SKIPPED_STEPS = ("cost", "scaling")  # cost runs over arrays below; the scaling curve is per design
CACHE_ENTRIES = 512
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


def _digest(doc: dict) -> str:
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


def _engine_results(inputs: SweepInputs, doc: dict, cache: EngineCache):
    """Validated design plus every engine's typed result except cost (cached by slice)."""
    design = validate_design(doc, inputs.catalog_entries)
    spec = fill_sites(design.spec, design.catalog)
    ctx = EvaluationContext(
        spec=spec,
        catalog=design.catalog,
        gpu=design.gpu,
        sites=site_slices(spec),
        accepted_risks=list(inputs.accepted_risks),
    )

    def run_all():
        for step in STEPS:
            if step.name not in SKIPPED_STEPS:
                needed = {name: ctx.results[name] for name in step.consumes}
                ctx.results[step.name] = step.run(ctx, **needed)
        return dict(ctx.results)

    key = "engines:" + _digest(
        {
            "doc": engine_slice(doc),
            "catalog": inputs.catalog_entries,
            "risks": inputs.accepted_risks,
        }
    )
    ctx.results.update(cache.get_or_run(key, run_all))
    return ctx


def _vector_values(grid: VariantGrid, digits: np.ndarray, path: str, fallback: float):
    if path not in grid.paths:
        return None, fallback
    axis = grid.paths.index(path)
    values = np.asarray(grid.values[axis], dtype=float)
    return values[digits[:, axis]], values


def _group_metrics(inputs: SweepInputs, doc: dict, u, s, cache: EngineCache) -> dict:
    ctx = _engine_results(inputs, doc, cache)
    if u is None:  # utilisation not swept: the design's own
        u = np.full(s.shape, ctx.spec.economics.utilisation)
    r = ctx.results
    overrides = design_overrides(ctx.spec.economics.cost_assumptions)
    engines = {
        name: r[name]
        for name in ("fabric", "facility", "storage", "performance", "regions", "reliability")
    }

    levers = cost_over_levers(
        ctx.spec,
        ctx.catalog,
        utilisation=u,
        power_price_scale=s,
        assumption_overrides=overrides,
        **engines,
    )
    reliability, security = r["reliability"], r["security"]
    ttt = reliability.time_to_train.with_failures_days if reliability.time_to_train else np.nan
    score = security.score.overall_pct
    constant = {
        "time_to_train_days": ttt,
        "goodput": reliability.goodput,
        "facility_power_mw": r["facility"].totals.facility_kw / 1000.0,
        "security_score_pct": np.nan if score is None else score,
        "fits_in_hbm": 1.0 if r["performance"].memory.fits else 0.0,
        "capex_usd": levers.capex_usd,
        "carbon_tco2e_per_year": np.nan
        if levers.carbon_tco2e_per_year is None
        else levers.carbon_tco2e_per_year,
    }
    out = {name: np.full(u.shape, value, dtype=float) for name, value in constant.items()}
    out["tco_usd"] = levers.tco_usd
    out["training_run_usd"] = levers.training_run_usd
    out["usd_per_gpu_hour"] = levers.usd_per_gpu_hour
    return out


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
    vector_block = grid.vector_block
    u_all, _ = _vector_values(grid, digits, UTILISATION_PATH, None)
    p_all, p_values = _vector_values(grid, digits, POWER_PRICE_PATH, None)
    # Electricity: the group runs at the largest swept price; each variant scales it.
    p_ref = float(np.max(p_values)) if p_all is not None else None
    # The vectorised axes are the fastest digits: a group is a contiguous run of indices.
    _, firsts, counts = np.unique(indices // vector_block, return_index=True, return_counts=True)
    for first, count in zip(firsts, counts, strict=True):
        rows = slice(int(first), int(first + count))
        assignment = grid.assignment(int(indices[first]))
        if p_ref is not None:
            assignment[POWER_PRICE_PATH] = p_ref
        try:
            doc = variant_doc(inputs.base_doc, assignment)
            u = None if u_all is None else u_all[rows]
            s = np.ones(int(count)) if p_all is None else _scale(p_all[rows], p_ref)
            values = _group_metrics(inputs, doc, u, s, cache)
        except (VariantError, ValueError) as exc:
            reason = _reason(exc)
            if reason not in reasons:
                reasons.append(reason)
            invalid[rows] = reasons.index(reason)
            continue
        for name, column in values.items():
            metrics[name][rows] = column
    return ChunkColumns(start=start, stop=stop, metrics=metrics, invalid=invalid, reasons=reasons)


def _scale(prices: np.ndarray, reference: float) -> np.ndarray:
    return np.zeros_like(prices) if reference == 0 else prices / reference


__all__ = [
    "ChunkColumns",
    "EngineCache",
    "SweepInputs",
    "engine_slice",
    "evaluate_chunk",
]
