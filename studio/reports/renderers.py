"""The one writer of every CSV and XLSX the studio produces.

A `Table` names its columns (label, unit, definition, source); the XLSX an analyst keeps gets
typed cells with a number format per unit, column widths, a frozen header row, an autofilter,
the unit in the header text ("Step time (s)") and a Definitions sheet with what each column
means and where it comes from. CSV carries the same headers.

Safe to open in a spreadsheet (ASVS 1.2.10): a text cell that starts with = + - @ tab, CR or NUL
is prefixed with ' so it is never run as a formula; numbers stay numbers."""

import csv
import io
import re
from dataclasses import dataclass, field

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.utils import get_column_letter

from studio.core.formula_guard import safe_cell

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}
# Units that are not units of a number: no "(text)" in a header.
WORDLESS_UNITS = {"", "text", "enum", "boolean", "catalog id", "version"}
# Number format per unit: what an analyst reads at a glance, never a 15-digit float. A cell
# keeps its full value; only its display is rounded.
UNIT_FORMATS = {
    "fraction": "0.0%",
    "%": "0.0",
    "s": "0.000",
    "ms": "#,##0.0",
    "h": "#,##0.0",
    "days": "#,##0.0",
    "USD": "#,##0",
    "USD/GPU-h": "#,##0.00",
    "kW": "#,##0.0",
    "W": "#,##0",
    "GiB": "#,##0.0",
    "GB": "#,##0.0",
    "tokens/s": "#,##0",
    "tCO2e/year": "#,##0.0",
    "Gb/s": "#,##0",
    "year": "0",
}
INTEGER_FORMAT = "#,##0"
FLOAT_FORMAT = "#,##0.00"
MIN_WIDTH, MAX_WIDTH = 8, 60


@dataclass(frozen=True)
class Column:
    """One column: `key` in the rows, the label users read, its unit, what it means and where
    its numbers come from. `unit_key` names a row field holding each cell's own unit (a spec
    sheet's value column mixes GPUs, USD and fractions)."""

    key: str
    label: str
    unit: str = ""
    definition: str = ""
    source: str = ""
    unit_key: str | None = None

    @property
    def header(self) -> str:
        return self.label if self.unit in WORDLESS_UNITS else f"{self.label} ({self.unit})"


@dataclass
class Table:
    title: str
    columns: list[Column]
    rows: list[dict]
    about: list[tuple[str, str]] = field(default_factory=list)  # what the file is: name, value


def to_csv(table: Table) -> bytes:
    out = io.StringIO()
    writer = csv.writer(out)  # RFC 4180 quoting
    writer.writerow([safe_cell(c.header) for c in table.columns])
    for row in table.rows:
        writer.writerow([_csv_text(row.get(c.key)) for c in table.columns])
    return out.getvalue().encode("utf-8")


def _csv_text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    return safe_cell(value)


def to_xlsx(table: Table) -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = _sheet_title(table.title)
    _write_data(sheet, table)
    _write_definitions(book.create_sheet("Definitions"), table)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _sheet_title(title: str) -> str:
    cleaned = re.sub(r"[\[\]:*?/\\]", " ", title).strip()[:31]
    return cleaned or "data"


def _write_data(sheet, table: Table) -> None:
    sheet.append([safe_cell(c.header) for c in table.columns])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
        cell.data_type = "s"
    for row in table.rows:
        sheet.append([_xlsx_value(row.get(c.key)) for c in table.columns])
    for index, column in enumerate(table.columns, start=1):
        _format_column(sheet, table, column, index)
    sheet.freeze_panes = "A2"
    if table.columns:
        last = get_column_letter(len(table.columns))
        sheet.auto_filter.ref = f"A1:{last}{max(len(table.rows) + 1, 2)}"


def _xlsx_value(value):
    if isinstance(value, dict | list):  # never a cell type: readable text
        return str(value)
    return safe_cell(value)


def _format_column(sheet, table: Table, column: Column, index: int) -> None:
    width = len(column.header)
    for row_number, row in enumerate(table.rows, start=2):
        cell = sheet.cell(row=row_number, column=index)
        value = cell.value
        if isinstance(value, str):
            cell.data_type = "s"  # never a formula, whatever openpyxl inferred
        elif isinstance(value, int | float) and not isinstance(value, bool):
            unit = row.get(column.unit_key, "") if column.unit_key else column.unit
            cell.number_format = number_format(unit, value)
        width = max(width, _display_width(value))
    letter = get_column_letter(index)
    sheet.column_dimensions[letter].width = min(max(width + 2, MIN_WIDTH), MAX_WIDTH)


def number_format(unit: str, value: int | float) -> str:
    """The unit's format, unless it would show a small value with fewer than two significant
    digits (0.08 USD as "0"): then General, which shows the value as it is."""
    if unit in UNIT_FORMATS:
        chosen = UNIT_FORMATS[unit]
    elif isinstance(value, int) or unit in ("count", "GPUs"):
        chosen = INTEGER_FORMAT
    else:
        chosen = FLOAT_FORMAT
    return "General" if _hides_digits(chosen, value) else chosen


def _hides_digits(number_format: str, value: int | float) -> bool:
    if not isinstance(value, float) or value == 0 or value.is_integer():
        return False
    decimals = len(number_format.split(".", 1)[1].rstrip("%")) if "." in number_format else 0
    shown = abs(value) * (100 if number_format.endswith("%") else 1)
    return shown * 10**decimals < 10


def _display_width(value) -> int:
    if value is None:
        return 0
    if isinstance(value, float):
        return len(f"{value:,.2f}")
    if isinstance(value, int) and not isinstance(value, bool):
        return len(f"{value:,}")
    return len(str(value))


DEFINITION_COLUMNS = (("Column", 28), ("Unit", 14), ("Definition", 70), ("Source", 60))


def _write_definitions(sheet, table: Table) -> None:
    sheet.append([name for name, _ in DEFINITION_COLUMNS])
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for column in table.columns:
        unit = "" if column.unit in WORDLESS_UNITS else column.unit
        sheet.append([column.header, unit, column.definition, column.source])
    if table.about:
        sheet.append([])
        for name, value in table.about:
            sheet.append([name, None, value])
    for row in sheet.iter_rows(min_row=2):
        for cell in row:
            if isinstance(cell.value, str):
                cell.value = safe_cell(cell.value)
                cell.data_type = "s"
                cell.alignment = Alignment(wrap_text=True, vertical="top")
    for index, (_, width) in enumerate(DEFINITION_COLUMNS, start=1):
        sheet.column_dimensions[get_column_letter(index)].width = width
    sheet.freeze_panes = "A2"


def render(table: Table, fmt: str) -> bytes:
    return to_csv(table) if fmt == "csv" else to_xlsx(table)
