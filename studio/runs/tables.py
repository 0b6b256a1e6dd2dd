"""Flat tables (one dict per row, units in the column names) read from run results, for
CSV / XLSX downloads and spreadsheet feeds. Nothing is computed here."""

from collections.abc import Callable

from studio.runs.headline import HEADLINE_METRICS
from studio.runs.selectors import TypedResults


def _headline(results: TypedResults) -> list[dict]:
    headline = results.headline
    return [
        {"metric": m.label, "key": m.key, "unit": m.unit, "value": headline[m.key]}
        for m in HEADLINE_METRICS
        if headline.get(m.key) is not None
    ]


def _memory(results: TypedResults) -> list[dict]:
    if results.performance is None:
        return []
    memory = results.performance.memory
    rows = [{"component": part, "gib_per_gpu": gib} for part, gib in memory.per_gpu_gib.items()]
    if rows:
        rows.append({"component": "HBM capacity", "gib_per_gpu": memory.hbm_capacity_gib})
    return rows


def _bom(results: TypedResults) -> list[dict]:
    """The cluster BOM: every site's lines and the WAN equipment, each with its site."""
    if results.fabric is None:
        return []
    return [{"site": line.site, **line.model_dump(exclude={"site"})} for line in results.fabric.bom]


def _cost_by_year(results: TypedResults) -> list[dict]:
    return list(results.cost.flat_table) if results.cost else []


def _security_checks(results: TypedResults) -> list[dict]:
    return list(results.security.checks) if results.security else []


# name -> (title, reader). Tables whose engine has not produced data are simply absent.
RUN_TABLES: dict[str, tuple[str, Callable[[TypedResults], list[dict]]]] = {
    "headline": ("Headline results", _headline),
    "memory": ("Memory per GPU", _memory),
    "bom": ("Bill of materials", _bom),
    "cost-by-year": ("Cost by item and year", _cost_by_year),
    "security-findings": ("Security checks", _security_checks),
}


def run_table(results: TypedResults | None, name: str) -> list[dict] | None:
    """The rows of one table; None for no (current) results or an unknown table."""
    if results is None or name not in RUN_TABLES:
        return None
    rows = RUN_TABLES[name][1](results)
    return [_flat_row(row) for row in rows]


def available_tables(results: TypedResults | None) -> list[dict]:
    return [
        {"name": name, "title": title}
        for name, (title, read) in RUN_TABLES.items()
        if results is not None and read(results)
    ]


def _flat_row(row: dict) -> dict:
    """Nested values become JSON-ish text so every cell is a scalar."""
    flat = {}
    for key, value in row.items():
        if isinstance(value, dict | list):
            value = (
                "; ".join(f"{k}={v}" for k, v in value.items())
                if isinstance(value, dict)
                else ", ".join(str(v) for v in value)
            )
        flat[key] = value
    return flat
