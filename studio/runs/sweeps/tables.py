"""A finished sweep's tables, built in Python from the engine's summary (templates only loop)."""

import functools
import math
import re

import models_engine

FRACTION_METRICS = {"goodput"}
# Spec units that say nothing after a value (a choice, a flag, a name).
UNITLESS = {None, "enum", "boolean", "text", "catalog id", "site id", "version", "count"}
LIST_INDEX = re.compile(r"\.\d+(?=\.|$)")


def metric_label(metric: str) -> str:
    _owner, unit, label = models_engine.SWEEP_METRICS[metric]
    return f"{label} ({unit})"


def format_metric(metric: str, value) -> str:
    """A metric for people: $12.3M, 19.5 days, 99.68 %, 0.227 MW; "n/a" when unknown."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        # The sweep runs the security engine only when a constraint reads its score.
        return "not run" if metric == "security_score_pct" else "n/a"
    unit = models_engine.SWEEP_METRICS[metric][1]
    if metric == "fits_in_hbm":
        return "yes" if value == 1 else "no"
    if metric in FRACTION_METRICS:
        return f"{value * 100:.2f} %"
    if unit.startswith("USD"):
        return _money(value) + ("/GPU-h" if "GPU-hour" in unit else "")
    if unit == "days":
        return f"{value:,.1f} days"
    if unit == "MW":
        return f"{value:,.3g} MW"
    if unit == "tCO2e/year":
        return f"{value:,.0f} tCO2e/yr"
    if unit == "%":
        return f"{value:.1f} %"
    return f"{value:,.4g}"


def _money(usd: float) -> str:
    for size, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(usd) >= size:
            return f"${usd / size:,.2f}{suffix}"
    return f"${usd:,.2f}"


@functools.cache
def _spec_units() -> dict[str, str | None]:
    return {row["path"]: row["unit"] for row in models_engine.field_docs()}


def input_unit(path: str) -> str | None:
    """The spec's unit of a swept path ("regions.sites.0.gpu_share" reads the list field's
    "regions.sites[].gpu_share"); None where the unit says nothing after a value."""
    unit = _spec_units().get(LIST_INDEX.sub("[]", path))
    return None if unit in UNITLESS else unit


def format_input(value, path: str | None = None) -> str:
    text = f"{value:,.6g}" if isinstance(value, float) else str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        text = f"{value:,}"
    unit = input_unit(path) if path else None
    if unit is None or isinstance(value, bool | str):
        return text
    if unit in ("ratio", "fraction", "fraction (0-1)"):
        return f"{text} ({unit.split(' ')[0]})"
    return f"{text} {unit}"


def ordered_inputs(summary: dict, inputs: dict) -> list[tuple[str, object]]:
    """A variant's inputs in the sweep's axis order (stored JSON may reorder keys)."""
    return [(axis["path"], inputs[axis["path"]]) for axis in summary["axes"]]


def inputs_text(summary: dict, inputs: dict) -> str:
    return ", ".join(
        f"{path} = {format_input(v, path)}" for path, v in ordered_inputs(summary, inputs)
    )


def objective_label(name: str) -> str:
    metric, sense = models_engine.SWEEP_OBJECTIVES[name]
    return f"{'minimise' if sense == 'min' else 'maximise'} {metric_label(metric)}"


def best_rows(summary: dict) -> list[dict]:
    """One row per objective: its best feasible variant, every metric formatted."""
    rows = []
    for name in summary["objectives"]:
        variant = summary["best"].get(name)
        if variant is None:
            continue
        rows.append(
            {
                "objective": objective_label(name),
                "index": variant["index"],
                "inputs": [
                    (p, format_input(v, p)) for p, v in ordered_inputs(summary, variant["inputs"])
                ],
                "metrics": [
                    format_metric(m, variant["metrics"].get(m)) for m in models_engine.SWEEP_METRICS
                ],
            }
        )
    return rows


def metric_headers() -> list[str]:
    return [metric_label(m) for m in models_engine.SWEEP_METRICS]


def front_rows(summary: dict, limit: int = 50) -> list[dict]:
    metrics = [models_engine.SWEEP_OBJECTIVES[o][0] for o in summary["objectives"]]
    return [
        {
            "index": variant["index"],
            "inputs": inputs_text(summary, variant["inputs"]),
            "values": [format_metric(m, variant["metrics"].get(m)) for m in metrics],
        }
        for variant in summary["pareto"][:limit]
    ]


def front_headers(summary: dict) -> list[str]:
    return [metric_label(models_engine.SWEEP_OBJECTIVES[o][0]) for o in summary["objectives"]]


def infeasible_rows(summary: dict) -> list[dict]:
    """Why variants are out: each constraint (its limit with its unit) and each reason a spec
    was refused, with the variants it rules out and their share of the sweep."""
    total = summary["total"] or 1
    valid = summary["valid"] or 1

    def row(why: str, count: int, kind: str, of: int, of_label: str) -> dict:
        return {
            "why": why,
            "kind": kind,
            "count": f"{count:,}",
            "share": f"{count / of * 100:.1f} % of {of_label}",
        }

    rows = [
        row(why, count, "constraint", valid, "valid variants")
        for why, count in summary["infeasible_by_constraint"].items()
    ]
    rows += [
        row(why, count, "invalid spec", total, "all variants")
        for why, count in summary["invalid_by_reason"].items()
    ]
    return rows


def count_cards(summary: dict) -> list[tuple[str, str, str]]:
    """(id, label, value) of the headline counts, with thousands separators."""
    total = summary["total"] or 1
    return [
        ("variant-count", "Variants", f"{summary['total']:,}"),
        ("valid-count", "Valid designs", f"{summary['valid']:,}"),
        (
            "feasible-count",
            "Feasible",
            f"{summary['feasible']:,} ({summary['feasible'] / total * 100:.1f} %)",
        ),
        ("front-count", "On the Pareto front", f"{summary['pareto_count']:,}"),
    ]
