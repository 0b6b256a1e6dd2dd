"""The reduction of a finished sweep: feasibility and why not, the Pareto front over the chosen
objectives, the best variant per objective, each objective's sensitivity to each swept input,
and a sample of variants for the charts. numpy over the variant axis throughout."""

from __future__ import annotations

import numpy as np

from .batch import VALID, ChunkColumns
from .definition import METRICS, OBJECTIVES, SweepDefinition
from .variants import VariantGrid

CHART_SAMPLE = 2_000
FRONT_LIMIT = 500
CONSTRAINT_LABELS = {
    "max_time_to_train_days": ("time_to_train_days", "le", "time to train > {} days"),
    "max_facility_power_mw": ("facility_power_mw", "le", "facility power > {} MW"),
    "max_capex_usd": ("capex_usd", "le", "capex > {} USD"),
    "min_security_score_pct": ("security_score_pct", "ge", "security score < {} %"),
}


def merge_chunks(chunks: list[ChunkColumns], total: int) -> tuple[dict, np.ndarray, list[str]]:
    """All variants' columns in index order; invalid codes renumbered into one reason list."""
    metrics = {name: np.full(total, np.nan) for name in METRICS}
    invalid = np.full(total, VALID, dtype=np.int32)
    reasons: list[str] = []
    for chunk in chunks:
        span = slice(chunk.start, chunk.stop)
        for name, values in chunk.metrics.items():
            metrics[name][span] = values
        local = []
        for reason in chunk.reasons:
            if reason not in reasons:
                reasons.append(reason)
            local.append(reasons.index(reason))
        mapped = np.array([*local, VALID], dtype=np.int32)
        invalid[span] = mapped[chunk.invalid]  # VALID (-1) picks the appended -1
    return metrics, invalid, reasons


def feasibility(definition: SweepDefinition, metrics: dict, invalid: np.ndarray):
    """(feasible mask, {constraint label: variants it rules out}). A valid variant is counted
    under every constraint it breaks."""
    valid = invalid == VALID
    feasible = valid.copy()
    why: dict[str, int] = {}
    limits = definition.constraints
    for field, (metric, sense, label) in CONSTRAINT_LABELS.items():
        limit = getattr(limits, field)
        if limit is None:
            continue
        values = metrics[metric]
        ok = values <= limit if sense == "le" else values >= limit
        broken = valid & ~ok  # NaN compares False: an unknown value does not pass
        # thousands separated, no exponent: "capex > 1,000,000,000 USD"
        why[label.format(f"{limit:,.12g}")] = int(broken.sum())
        feasible &= ok
    if limits.memory_must_fit:
        broken = valid & (metrics["fits_in_hbm"] != 1.0)
        why["does not fit in GPU memory"] = int(broken.sum())
        feasible &= ~broken
    return feasible, why


def objective_matrix(definition: SweepDefinition, metrics: dict, rows: np.ndarray) -> np.ndarray:
    """(n, k) values to minimise (maximised objectives negated)."""
    columns = []
    for name in definition.objectives:
        metric, sense = OBJECTIVES[name]
        values = metrics[metric][rows]
        columns.append(values if sense == "min" else -values)
    return np.column_stack(columns)


def pareto_front(costs: np.ndarray) -> np.ndarray:
    """Positions of the non-dominated rows of `costs` (minimise every column); of identical
    rows one (the first) is kept."""
    if costs.shape[0] == 0:
        return np.array([], dtype=np.int64)
    unique, first = np.unique(costs, axis=0, return_index=True)
    if unique.shape[1] == 1:
        return first[:1]
    if unique.shape[1] == 2:  # sorted by the first, a row is kept when it beats the second
        order = np.lexsort((unique[:, 1], unique[:, 0]))
        second = unique[order, 1]
        best_before = np.minimum.accumulate(np.concatenate([[np.inf], second[:-1]]))
        return np.sort(first[order[second < best_before]])
    keep = np.arange(unique.shape[0])
    candidates = unique
    position = 0
    while position < candidates.shape[0]:
        row = candidates[position]
        dominated = np.all(row <= candidates, axis=1) & np.any(row < candidates, axis=1)
        candidates, keep = candidates[~dominated], keep[~dominated]
        position = int(np.sum(~dominated[:position])) + 1
    return np.sort(first[keep])


def sensitivity(grid: VariantGrid, definition: SweepDefinition, metrics, valid) -> dict:
    """Main effect of each swept input on each objective: the spread (max - min) of the
    objective's mean over the variants at each value of the input, all else averaged; and that
    spread relative to the overall mean."""
    indices = np.nonzero(valid)[0]
    digits = grid.digits(indices)
    out = {}
    for name in definition.objectives:
        metric, _ = OBJECTIVES[name]
        values = metrics[metric][indices]
        known = np.isfinite(values)
        overall = float(values[known].mean()) if known.any() else float("nan")
        per_axis = {}
        for axis, path in enumerate(grid.paths):
            size = grid.radix[axis]
            d = digits[known, axis]
            sums = np.bincount(d, weights=values[known], minlength=size)
            counts = np.bincount(d, minlength=size)
            means = sums[counts > 0] / counts[counts > 0]
            spread = float(means.max() - means.min()) if means.size else 0.0
            relative = spread / abs(overall) if np.isfinite(overall) and overall else 0.0
            per_axis[path] = {"spread": _json_number(spread), "relative": _json_number(relative)}
        out[name] = per_axis
    return out


def variant_row(grid: VariantGrid, metrics: dict, index: int) -> dict:
    return {
        "index": int(index),
        "inputs": grid.assignment(int(index)),
        "metrics": {name: _json_number(metrics[name][index]) for name in METRICS},
    }


def _json_number(value):
    value = float(value)
    return value if np.isfinite(value) else None


def reduce_sweep(definition: SweepDefinition, chunks: list[ChunkColumns], seed: int = 0) -> dict:
    """The sweep's summary as plain JSON (see module docstring)."""
    grid = VariantGrid.of(definition)
    metrics, invalid, reasons = merge_chunks(chunks, grid.total)
    valid = invalid == VALID
    feasible, why = feasibility(definition, metrics, invalid)
    rows = np.nonzero(feasible)[0]
    costs = objective_matrix(definition, metrics, rows)
    finite = np.all(np.isfinite(costs), axis=1)
    rows, costs = rows[finite], costs[finite]
    front = rows[pareto_front(costs)]
    order = np.argsort(objective_matrix(definition, metrics, front)[:, 0], kind="stable")
    front = front[order]
    best = {}
    for position, name in enumerate(definition.objectives):
        if rows.size:
            best[name] = variant_row(grid, metrics, rows[int(np.argmin(costs[:, position]))])
    rng = np.random.default_rng(seed)
    sample = rows if rows.size <= CHART_SAMPLE else np.sort(rng.choice(rows, CHART_SAMPLE, False))
    invalid_counts = np.bincount(invalid[~valid], minlength=len(reasons)) if reasons else []
    return {
        "total": grid.total,
        "valid": int(valid.sum()),
        "feasible": int(feasible.sum()),
        "axes": [
            {"path": p, "values": list(v)} for p, v in zip(grid.paths, grid.values, strict=True)
        ],
        "objectives": list(definition.objectives),
        "infeasible_by_constraint": why,
        "invalid_by_reason": {r: int(c) for r, c in zip(reasons, invalid_counts, strict=True)},
        "pareto_count": int(front.size),
        "pareto": [variant_row(grid, metrics, i) for i in front[:FRONT_LIMIT]],
        "best": best,
        "sensitivity": sensitivity(grid, definition, metrics, valid),
        "sample": [variant_row(grid, metrics, i) for i in sample],
    }


__all__ = ["feasibility", "merge_chunks", "pareto_front", "reduce_sweep", "sensitivity"]
