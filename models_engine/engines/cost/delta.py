"""The cost change between two cost results, line by line, the way Infracost shows a change:
each line with its quantity before -> after, unit price and the change in USD, then the total.

Pure bookkeeping over two stored results: lines are matched by (part, item, site) and nothing
is re-priced. A line priced inside a category allowance (`covered_by_allowance`) has no total of
its own; its cost moves on the allowance line, so the line deltas of priced lines always add up
to the change of the headline total.
"""

from __future__ import annotations

from collections.abc import Iterable

from .result import CostResult

SECTIONS = {"capex": ("total_usd", "USD"), "opex": ("total_usd", "USD/year")}


def _key(line: dict) -> tuple:
    return (line.get("part"), line.get("item"), line.get("site"))


def _keyed(lines: Iterable[dict]) -> dict[tuple, dict]:
    """Lines by key; a repeated key (the same item split in two) gets an occurrence number."""
    out: dict[tuple, dict] = {}
    for line in lines:
        key = _key(line)
        count = sum(1 for existing in out if existing[:3] == key)
        out[(*key, count)] = line
    return out


def _total(line: dict | None, total_key: str) -> float | None:
    if line is None:
        return 0.0
    if line.get("covered_by_allowance"):
        return 0.0  # its cost is on the allowance line
    return line.get(total_key)


def _status(before: dict | None, after: dict | None, delta: float | None) -> str:
    if before is None:
        return "added"
    if after is None:
        return "removed"
    if delta is None:
        return "unpriced"
    if before.get("quantity") != after.get("quantity") or abs(delta) > 1e-6:
        return "changed"
    return "unchanged"


def _row(before: dict | None, after: dict | None, total_key: str) -> dict:
    old, new = _total(before, total_key), _total(after, total_key)
    delta = None if old is None or new is None else new - old
    line = after or before
    return {
        "part": line.get("part"),
        "item": line.get("item"),
        "site": line.get("site"),
        "unit": line.get("unit"),
        "quantity_before": before.get("quantity") if before else None,
        "quantity_after": after.get("quantity") if after else None,
        "unit_price_before_usd": before.get("unit_price_usd") if before else None,
        "unit_price_after_usd": after.get("unit_price_usd") if after else None,
        "total_before_usd": old if before else None,
        "total_after_usd": new if after else None,
        "delta_usd": delta,
        "allowance": bool((after or {}).get("allowance") or (before or {}).get("allowance")),
        "covered_by_allowance": bool(line.get("covered_by_allowance")),
        "included": str(line.get("price_source") or "").startswith("included"),
        "status": _status(before, after, delta),
    }


def _section(before: CostResult, after: CostResult, section: str) -> dict:
    total_key, unit = SECTIONS[section]
    old = _keyed(getattr(before, section)["lines"])
    new = _keyed(getattr(after, section)["lines"])
    keys = list(old) + [key for key in new if key not in old]
    rows = [_row(old.get(key), new.get(key), total_key) for key in keys]
    changed = [row for row in rows if row["status"] != "unchanged"]
    changed.sort(key=lambda row: -abs(row["delta_usd"] or 0.0))
    total_before = sum(row["total_before_usd"] or 0.0 for row in rows)
    total_after = sum(row["total_after_usd"] or 0.0 for row in rows)
    return {
        "unit": unit,
        "lines": changed,
        "unchanged_count": len(rows) - len(changed),
        "total_before_usd": total_before,
        "total_after_usd": total_after,
        "delta_usd": total_after - total_before,
        "unpriced_lines": sum(1 for row in rows if row["status"] == "unpriced"),
    }


def cost_delta(before: CostResult | None, after: CostResult | None) -> dict | None:
    """Capex (USD) and yearly opex (USD/year) changes between two cost results; None when
    either run has no cost result."""
    if before is None or after is None:
        return None
    return {section: _section(before, after, section) for section in SECTIONS}
