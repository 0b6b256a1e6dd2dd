"""The `Table` behind each export: which columns, their labels, units, definitions and
sources. Rows come from `studio.runs.tables` (read from the typed engine results) and
`studio.designs.spec_sheet`; nothing is computed here."""

from models_engine import __version__ as ENGINE_VERSION
from studio.catalog.selectors import team_catalog
from studio.designs.spec_sheet import spec_rows
from studio.reports.renderers import Column, Table
from studio.runs.headline import HEADLINE_METRICS
from studio.runs.tables import RUN_TABLES, run_table

# Key suffixes that carry a unit, longest first ("_usd_per_gpu_hour" before "_usd").
SUFFIX_UNITS = [
    ("_usd_per_gpu_hour", "USD/GPU-h"),
    ("_usd", "USD"),
    ("_gib", "GiB"),
    ("_gb", "GB"),
    ("_kw", "kW"),
    ("_w", "W"),
    ("_gbps", "Gb/s"),
    ("_days", "days"),
    ("_pct", "%"),
    ("_s", "s"),
    ("_h", "h"),
]
ACRONYMS = {"usd": "USD", "gpu": "GPU", "id": "ID", "bom": "BOM", "atlas": "ATLAS"}
# Columns whose meaning their name does not say; the others read as "<label> of the line".
DEFINITIONS = {
    "site": "Site of the cluster the line belongs to (empty: the WAN between sites).",
    "catalog_id": "Catalog entry the line is priced and powered from.",
    "quantity": "Units of the item on the line.",
    "unit_price_usd": "Price of one unit (catalog, team entry or the design's price override).",
    "total_price_usd": "Quantity x unit price; empty where no price is published.",
    "unit_power_w": "Typical power of one unit.",
    "unit_power_max_w": "Maximum power of one unit.",
    "total_power_w": "Quantity x typical unit power.",
    "total_power_max_w": "Quantity x maximum unit power.",
    "year": "Year of the cash flow: 0 = purchase, 1..N = years of operation.",
    "capex_usd": "Capital spent on the line in the year (purchase or refresh).",
    "opex_usd": "Operating cost of the line in the year.",
    "depreciation_usd": "Straight-line depreciation booked in the year.",
    "residual_value_usd": "Value left at the end of the horizon.",
    "price_source": "Where the unit price comes from.",
    "price_date": "When the unit price was published.",
    "severity": "critical / high / medium / low.",
    "status": "pass / fail / manual / accepted risk (after any accepted risk).",
    "gib_per_gpu": "Memory each GPU holds for this component.",
}
SPECIAL_LABELS = {"gib_per_gpu": ("Memory per GPU", "GiB")}


def label_and_unit(key: str) -> tuple[str, str]:
    """'unit_price_usd' -> ('Unit price', 'USD'): the unit the engine puts in a field's name."""
    if key in SPECIAL_LABELS:
        return SPECIAL_LABELS[key]
    stem, unit = key, ""
    for suffix, suffix_unit in SUFFIX_UNITS:
        if key.endswith(suffix) and len(key) > len(suffix):
            stem, unit = key[: -len(suffix)], suffix_unit
            break
    words = [ACRONYMS.get(word, word) for word in stem.split("_")]
    text = " ".join(words)
    return text[:1].upper() + text[1:], unit


def _keys(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(key for row in rows for key in row))


def _run_about(run) -> list[tuple[str, str]]:
    revision = run.revision
    spec = revision.spec
    return [
        ("Design", f"{revision.design.name} (design id {revision.design_id})"),
        ("Revision", f"r{revision.number}"),
        ("GPU", f"{gpu_model(spec, revision.design.project.team_id)} x {gpu_count(spec):,}"),
        ("Run", f"#{run.pk}, engine version {run.engine_version or ENGINE_VERSION}"),
    ]


def run_export_table(run, results, name: str) -> Table | None:
    rows = run_table(results, name)
    if rows is None:
        return None
    title, _ = RUN_TABLES[name]
    source = f"models_engine {ENGINE_VERSION}, run #{run.pk}: {title.lower()}"
    if name == "headline":
        return _headline_table(rows, source, _run_about(run))
    columns = []
    for key in _keys(rows):
        label, unit = label_and_unit(key)
        definition = DEFINITIONS.get(key, f"{label} of the row, as the engine reports it.")
        columns.append(Column(key, label, unit, definition, source))
    return Table(title=title, columns=columns, rows=rows, about=_run_about(run))


def _headline_table(rows: list[dict], source: str, about) -> Table:
    columns = [
        Column("metric", "Metric", definition="Headline result.", source=source),
        Column(
            "key", "Key", definition="Where the engine puts it (results.headline).", source=source
        ),
        Column("unit", "Unit", definition="Unit of the value.", source=source),
        Column("value", "Value", unit_key="unit", definition="The result.", source=source),
    ]
    return Table(title="Headline results", columns=columns, rows=rows, about=about)


# ---- project level ------------------------------------------------------------------------


def gpu_count(spec: dict) -> int | None:
    return (spec.get("compute") or {}).get("gpu_count")


def gpu_model(spec: dict, team_id: int) -> str:
    """The GPU's catalog name (the team's catalog), or a custom GPU's own name."""
    compute = spec.get("compute") or {}
    custom = compute.get("custom_gpu")
    if custom:
        return f"{custom.get('name') or 'custom GPU'} (custom)"
    sku = compute.get("gpu_sku") or ""
    entry = team_catalog(team_id).gpus.get(sku)
    return entry.name if entry is not None else sku


PROJECT_SOURCE = "The design's latest revision; results from its latest finished run"


def project_designs_export_table(project, design_columns) -> Table:
    rows = []
    for column in design_columns:
        revision = column.revision
        spec = revision.spec if revision else {}
        row = {
            "design_id": column.design.pk,
            "design": column.design.name,
            "revision": f"r{revision.number}" if revision else "",
            "gpu_model": gpu_model(spec, project.team_id) if revision else "",
            "gpu_count": gpu_count(spec),
            "run_id": column.run.pk if column.run else None,
        }
        row.update({metric.key: column.headline.get(metric.key) for metric in HEADLINE_METRICS})
        rows.append(row)
    columns = [
        Column("design_id", "Design ID", definition="The design's id in the studio and the API."),
        Column("design", "Design", definition="Design name."),
        Column("revision", "Revision", definition="Latest revision, as the studio shows it."),
        Column("gpu_model", "GPU model", definition="compute.gpu_sku (catalog name)."),
        Column("gpu_count", "GPU count", "GPUs", "compute.gpu_count of the revision."),
        Column("run_id", "Run", definition="Latest finished run of the revision (empty: none)."),
    ]
    columns = [Column(**{**c.__dict__, "source": PROJECT_SOURCE}) for c in columns]
    columns += [
        Column(
            metric.key,
            metric.label,
            "" if metric.unit == "count" else metric.unit,
            f"Headline result `{metric.key}` ({metric.better} is better).",
            f"models_engine results.headline.{metric.key}",
        )
        for metric in HEADLINE_METRICS
    ]
    about = [("Project", f"{project.name} (project id {project.pk})"), ("Engine", ENGINE_VERSION)]
    return Table(title="Designs", columns=columns, rows=rows, about=about)


# ---- the spec as a spreadsheet ------------------------------------------------------------


def spec_export_table(revision) -> Table:
    design = revision.design
    source = f"Design spec r{revision.number}; units and ranges from the engine's JSON Schema"
    # Lower-case headers: the import reads `path` and `value` back by these names.
    columns = [
        Column("path", "path", definition="Dotted spec path (list items by index).", source=source),
        Column(
            "value",
            "value",
            unit_key="unit",
            definition="The value in the revision; edit it to patch.",
            source=source,
        ),
        Column("unit", "unit", definition="Unit of the value (engine JSON Schema).", source=source),
        Column("description", "description", definition="What the field means.", source=source),
        Column("allowed", "allowed", definition="Allowed range or choices.", source=source),
    ]
    about = [
        ("Design", f"{design.name} (design id {design.pk})"),
        ("Revision", f"r{revision.number} ({revision.spec_hash[:12]})"),
        ("Import", "Edit values and upload the sheet on the design page as a patch."),
    ]
    return Table(title="Spec", columns=columns, rows=spec_rows(revision.spec), about=about)
