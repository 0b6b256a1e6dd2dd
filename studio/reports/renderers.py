"""CSV and XLSX bytes from flat rows, safe to open in a spreadsheet (ASVS 1.2.10: a cell that
starts with = + - @ tab, CR or NUL is prefixed with ' so it is never run as a formula)."""

import csv
import io

from openpyxl import Workbook

FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r", "\0")
CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def safe_cell(value):
    if isinstance(value, str) and value.startswith(FORMULA_TRIGGERS):
        return "'" + value
    return value


def _columns(rows: list[dict]) -> list[str]:
    return list(dict.fromkeys(key for row in rows for key in row))


def to_csv(rows: list[dict]) -> bytes:
    out = io.StringIO()
    columns = _columns(rows)
    writer = csv.writer(out)  # RFC 4180 quoting
    writer.writerow([safe_cell(c) for c in columns])
    for row in rows:
        writer.writerow([safe_cell(row.get(c)) for c in columns])
    return out.getvalue().encode("utf-8")


def to_xlsx(rows: list[dict], title: str = "data") -> bytes:
    book = Workbook()
    sheet = book.active
    sheet.title = title[:31]
    columns = _columns(rows)
    sheet.append([safe_cell(c) for c in columns])
    for row in rows:
        sheet.append([safe_cell(row.get(c)) for c in columns])
    for cell in (c for line in sheet.iter_rows() for c in line):
        if isinstance(cell.value, str):
            cell.data_type = "s"  # never a formula, whatever openpyxl inferred
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def render(rows: list[dict], fmt: str, title: str) -> bytes:
    return to_csv(rows) if fmt == "csv" else to_xlsx(rows, title)
