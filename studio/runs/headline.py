"""The headline results a review board compares, read from engine results (never recomputed):
label, unit, where the engine puts it, and which direction is better."""

from dataclasses import dataclass

from studio.runs.selectors import TypedResults, typed_results


@dataclass(frozen=True)
class Metric:
    key: str
    label: str
    unit: str
    better: str  # "lower" | "higher" | "neutral" (no direction: no best, no improvement)


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
    Metric("facility_power_kw", "Facility power", "kW", "lower"),
    Metric("racks", "Racks", "count", "lower"),
    Metric("sites", "Sites", "count", "neutral"),
    Metric("capex_usd", "Capex", "USD", "lower"),
    Metric("tco_usd", "TCO (NPV)", "USD", "lower"),
    Metric("usd_per_gpu_hour", "Cost per delivered GPU-hour", "USD/GPU-h", "lower"),
    Metric("training_run_usd", "Cost of one training run", "USD", "lower"),
    Metric("usd_per_million_tokens", "Cost per million tokens served", "USD", "lower"),
    Metric("carbon_tco2e_per_year", "Carbon", "tCO2e/year", "lower"),
    Metric("security_score_pct", "Security score", "%", "higher"),
]


def headline_of(run) -> dict:
    """The run's headline figures; empty for no run or results of an older engine version."""
    typed = typed_results(run)
    return typed.headline if typed else {}


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
        if delta and metric.better != "neutral":
            improved = (delta < 0) if metric.better == "lower" else (delta > 0)
        rows.append(
            {
                "metric": metric,
                "old": old,
                "new": new,
                "delta": delta,
                "relative_pct": relative * 100 if relative is not None else None,
                "improved": improved,
                **_change_texts(metric, old, new, delta),
            }
        )
    return rows


def _change_texts(metric: Metric, old, new, delta) -> dict:
    """The diff table's cells as a reader wants them: one unit per row (millions of USD when
    either side reaches a million), fractions in %, the change signed."""
    numbers = [abs(v) for v in (old, new) if isinstance(v, int | float) and not isinstance(v, bool)]
    scale, unit = 1.0, metric.unit
    if metric.unit == "USD" and numbers and max(numbers) >= 1e6:
        scale, unit = 1e6, "million USD"
    elif metric.unit == "fraction":
        scale, unit = 0.01, "%"

    def text(value, signed: bool = False) -> str:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return _format(value, metric.unit)
        shown = _format(value / scale if scale != 1.0 else value, "")
        return f"+{shown}" if signed and value > 0 else shown

    def change(value) -> str:
        """The change at the precision of the values beside it (48.6 -> 48.6 is a change of
        -0.03, not -0.0291); a change too small for that precision keeps 1 significant digit."""
        if not isinstance(value, float):  # whole numbers and "—" as the values are
            return text(value, signed=True)
        decimals = max(_decimals(text(old)), _decimals(text(new)))
        scaled = value / scale if scale != 1.0 else value
        if scaled and round(scaled, decimals) == 0:
            shown = f"{scaled:.1g}"
        else:
            shown = f"{scaled:,.{decimals}f}"
        return f"+{shown}" if value > 0 else shown

    return {
        "unit_text": unit,
        "old_text": text(old),
        "new_text": text(new),
        "delta_text": change(delta) if delta is not None else "",
    }


def _decimals(shown: str) -> int:
    """Digits after the decimal point of a formatted number ("48.6" -> 1, "1,234" -> 0)."""
    number = shown.split()[0] if shown else ""
    return len(number.split(".")[1]) if "." in number else 0


def _format(value, unit: str) -> str:
    if isinstance(value, bool) or value is None:
        return "—" if value is None else ("yes" if value else "no")
    if isinstance(value, int):
        return f"{value:,}"
    if unit == "fraction":
        return f"{value * 100:.1f} %"
    if unit == "USD" and abs(value) >= 1e6:
        return f"{value / 1e6:,.1f}"  # the card says "million USD" below
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.3g}" if abs(value) < 10 else f"{value:.1f}"


def card_text(value, metric: Metric) -> tuple[str, str]:
    """(number, unit printed under it) of a headline card: the design page, the results page,
    the review page and presenting mode all write a headline number this one way."""
    unit = "" if metric.unit == "fraction" else metric.unit
    if metric.unit == "USD" and isinstance(value, int | float) and abs(value) >= 1e6:
        unit = "million USD"
    return _format(value, metric.unit), unit


def headline_cards(results: TypedResults | None, evidence: dict | None = None) -> list[dict]:
    """The headline cards; `evidence` ({key: HeadlineEvidence}, studio.runs.evidence) puts the
    grade beside each number."""
    headline = results.headline if results else {}
    evidence = evidence or {}
    cards = []
    for metric in HEADLINE_METRICS:
        value = headline.get(metric.key)
        if value is None or (metric.key == "sites" and value == 1):
            continue  # a single site is the ordinary case: no card for it
        text, unit = card_text(value, metric)
        cards.append(
            {
                "key": metric.key,
                "label": metric.label,
                "text": text,
                "unit": unit,
                "evidence": evidence.get(metric.key),
            }
        )
    return cards


STATUS_ORDER = {"FAIL": 0, "ACCEPTED_RISK": 1, "MANUAL": 2, "PASS": 3, "NOT_APPLICABLE": 4}
SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3, "info": 4}


def checks_for_review(results: TypedResults | None) -> list[dict]:
    """Security checks in the order a reviewer reads them: failures first, worst first."""
    checks = results.security.checks if results and results.security else []
    return sorted(
        checks,
        key=lambda c: (
            STATUS_ORDER.get(c["status"], 9),
            SEVERITY_ORDER.get(c["severity"], 9),
            c["category"],
            c["id"],
        ),
    )
