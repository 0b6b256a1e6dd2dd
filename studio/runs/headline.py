"""The headline results a review board compares, read from engine results (never recomputed):
label, unit, where the engine puts it, and which direction is better."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str
    better: str  # "lower" | "higher"


# Order is the order of the comparison table. Keys are those of results["headline"].
HEADLINE_METRICS = [
    Metric("step_time_s", "Step time", "s", "lower"),
    Metric("time_to_train_days", "Time to train", "days", "lower"),
    Metric("mfu", "MFU", "fraction", "higher"),
    Metric("tokens_per_s", "Throughput", "tokens/s", "higher"),
    Metric("memory_per_gpu_gib", "Memory per GPU", "GiB", "lower"),
    Metric("mtti_h", "Mean time to interruption", "h", "higher"),
    Metric("goodput", "Goodput", "fraction", "higher"),
    Metric("it_power_kw", "IT power", "kW", "lower"),
    Metric("capex_usd", "Capex", "USD", "lower"),
    Metric("tco_usd", "TCO (NPV)", "USD", "lower"),
    Metric("usd_per_gpu_hour", "Cost per GPU-hour", "USD/GPU-h", "lower"),
    Metric("security_score_pct", "Security score", "%", "higher"),
]


def headline_of(run) -> dict:
    if run is None or not run.results:
        return {}
    return run.results.get("headline", {})


def headline_changes(before: dict, after: dict) -> list[dict]:
    rows = []
    for metric in HEADLINE_METRICS:
        old, new = before.get(metric.key), after.get(metric.key)
        if old is None and new is None:
            continue
        delta = (
            (new - old) if isinstance(old, int | float) and isinstance(new, int | float) else None
        )
        relative = delta / old if delta is not None and old else None
        improved = None
        if delta:
            improved = (delta < 0) if metric.better == "lower" else (delta > 0)
        rows.append(
            {
                "metric": metric,
                "old": old,
                "new": new,
                "delta": delta,
                "relative_pct": relative * 100 if relative is not None else None,
                "improved": improved,
            }
        )
    return rows
