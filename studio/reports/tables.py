"""Flat tables (one dict per row, units in the column names) read from engine results, for
CSV / XLSX downloads and spreadsheet feeds. Nothing is computed here."""

from collections.abc import Callable

from studio.runs.headline import HEADLINE_METRICS


def _headline(results: dict) -> list[dict]:
    headline = results.get("headline", {})
    return [
        {"metric": m.label, "key": m.key, "unit": m.unit, "value": headline[m.key]}
        for m in HEADLINE_METRICS
        if headline.get(m.key) is not None
    ]


def _memory(results: dict) -> list[dict]:
    memory = results.get("performance", {}).get("memory", {})
    rows = [
        {"component": part, "gib_per_gpu": gib}
        for part, gib in memory.get("per_gpu_gib", {}).items()
    ]
    if rows:
        rows.append({"component": "HBM capacity", "gib_per_gpu": memory["hbm_capacity_gib"]})
    return rows


def _path(*keys: str) -> Callable[[dict], list[dict]]:
    def read(results: dict) -> list[dict]:
        value = results
        for key in keys:
            value = value.get(key, {}) if isinstance(value, dict) else {}
        return value if isinstance(value, list) else []

    return read


# name -> (title, reader). Tables whose engine has not produced data are simply absent.
RUN_TABLES: dict[str, tuple[str, Callable[[dict], list[dict]]]] = {
    "headline": ("Headline results", _headline),
    "memory": ("Memory per GPU", _memory),
    "bom": ("Bill of materials", _path("fabric", "bom")),
    "cost-by-year": ("Cost by item and year", _path("cost", "flat_table")),
    "security-findings": ("Security checks", _path("security", "checks")),
}


def run_table(results: dict | None, name: str) -> list[dict] | None:
    if not results or name not in RUN_TABLES:
        return None
    rows = RUN_TABLES[name][1](results)
    return [_flat_row(row) for row in rows]


def available_tables(results: dict | None) -> list[dict]:
    return [
        {"name": name, "title": title}
        for name, (title, read) in RUN_TABLES.items()
        if results and read(results)
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


def project_designs_table(columns) -> list[dict]:
    """One row per design of a project with its latest evaluated headline results."""
    rows = []
    for column in columns:
        row = {
            "design": column.design.name,
            "revision": column.revision.number if column.revision else None,
            "run_id": column.run.pk if column.run else None,
        }
        for metric in HEADLINE_METRICS:
            row[f"{metric.key} ({metric.unit})"] = column.headline.get(metric.key)
        rows.append(row)
    return rows
