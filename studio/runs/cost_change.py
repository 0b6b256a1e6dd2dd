"""The cost change between two revisions' runs, line by line (Infracost's diff): rows built
from the engine's `cost_delta` over the two runs' stored cost results, formatted here so the
template only loops."""

from models_engine import cost_delta
from studio.runs.sections.format import DASH, amount, percent, usd
from studio.runs.selectors import typed_results

MINUS = "\u2212"  # the minus sign
STATUS_SIGN = {"added": "+", "removed": MINUS, "changed": "~", "unpriced": "?"}
SECTION_TITLES = {"capex": "Capex", "opex": "Opex per year"}


def _signed_usd(value) -> str:
    if value is None:
        return "no price"
    sign = "+" if value > 0 else MINUS if value < 0 else ""
    return f"{sign}{usd(abs(value))}"


def _quantity(row: dict) -> str:
    before, after = row["quantity_before"], row["quantity_after"]
    unit = row["unit"] or ""
    if before == after:
        return f"{amount(after)} {unit}".strip()
    old = amount(before) if before is not None else DASH
    new = amount(after) if after is not None else DASH
    return f"{old} → {new} {unit}".strip()


def _price(value, unit: str) -> str:
    """A unit price with the decimals its size needs; a fraction of USD as a percentage."""
    if value is None:
        return DASH
    if unit.startswith("USD of"):
        return percent(value)
    decimals = 3 if abs(value) < 1 else 2 if abs(value) < 100 else 0
    return usd(value, decimals)


def _unit_price(row: dict) -> str:
    before, after = row["unit_price_before_usd"], row["unit_price_after_usd"]
    unit = row["unit"] or ""
    if row["covered_by_allowance"]:
        return "in category allowance"
    if row["included"]:
        return "in the system price"
    if before is not None and after is not None and abs(before - after) > 1e-9:
        return f"{_price(before, unit)} → {_price(after, unit)}"
    return _price(after if after is not None else before, unit)


def _display_row(row: dict) -> dict:
    return {
        "sign": STATUS_SIGN.get(row["status"], ""),
        "status": row["status"],
        "item": row["item"],
        "part": row["part"],
        "quantity": _quantity(row),
        "unit_price": _unit_price(row),
        "delta": _signed_usd(row["delta_usd"]),
        "direction": "up" if (row["delta_usd"] or 0) > 0 else "down" if row["delta_usd"] else "",
        "allowance": row["allowance"],
    }


def _section(name: str, section: dict) -> dict:
    return {
        "name": name,
        "title": SECTION_TITLES[name],
        "unit": section["unit"],
        "rows": [_display_row(row) for row in section["lines"]],
        "unchanged_count": section["unchanged_count"],
        "before": usd(section["total_before_usd"]),
        "after": usd(section["total_after_usd"]),
        "delta": _signed_usd(section["delta_usd"]),
        "direction": "up" if section["delta_usd"] > 0 else "down" if section["delta_usd"] else "",
        "unpriced_lines": section["unpriced_lines"],
    }


def cost_change(before_run, after_run) -> list[dict]:
    """Capex and opex sections; empty when either run has no cost result."""
    before, after = typed_results(before_run), typed_results(after_run)
    delta = cost_delta(before.cost if before else None, after.cost if after else None)
    if delta is None:
        return []
    return [_section(name, section) for name, section in delta.items()]
