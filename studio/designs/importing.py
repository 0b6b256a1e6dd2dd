"""Read a design spec from an uploaded JSON, CSV or XLSX file.

CSV and XLSX hold two columns, `path` and `value` (one row per field, dotted paths with list
indices, as the CSV export writes them); JSON holds the spec document itself."""

import csv
import io
import json

from openpyxl import load_workbook

from studio.designs.editor.codec import form_to_spec, rows_to_form

MAX_UPLOAD_BYTES = 2 * 1024 * 1024


class ImportFileInvalid(ValueError):
    pass


def _rows_from_csv(raw: bytes) -> list[tuple[str, str]]:
    text = raw.decode("utf-8-sig")
    reader = csv.reader(io.StringIO(text))
    rows = [row for row in reader if row]
    if rows and [c.strip().lower() for c in rows[0][:2]] == ["path", "value"]:
        rows = rows[1:]
    if any(len(row) < 2 for row in rows):
        raise ImportFileInvalid("every CSV row needs two columns: path, value")
    return [(row[0], row[1]) for row in rows]


def _rows_from_xlsx(raw: bytes) -> list[tuple[str, str]]:
    try:
        sheet = load_workbook(io.BytesIO(raw), read_only=True, data_only=True).worksheets[0]
    except Exception as exc:  # openpyxl raises many types for a file that is not XLSX
        raise ImportFileInvalid(f"not a readable XLSX workbook ({type(exc).__name__})") from exc
    rows = []
    for path, value, *_ in sheet.iter_rows(values_only=True):
        if path is None or str(path).strip().lower() == "path":
            continue
        rows.append((str(path), "" if value is None else str(value)))
    return rows


def spec_from_upload(name: str, raw: bytes) -> dict:
    if len(raw) > MAX_UPLOAD_BYTES:
        raise ImportFileInvalid(f"file is larger than {MAX_UPLOAD_BYTES // 1024} KiB")
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if extension == "json":
        try:
            doc = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ImportFileInvalid(f"not valid JSON: {exc}") from exc
        if not isinstance(doc, dict):
            raise ImportFileInvalid("the JSON file must hold one design object")
        return doc
    if extension == "csv":
        try:
            return form_to_spec(rows_to_form(_rows_from_csv(raw)))
        except UnicodeDecodeError as exc:
            raise ImportFileInvalid("the CSV file must be UTF-8 text") from exc
    if extension == "xlsx":
        return form_to_spec(rows_to_form(_rows_from_xlsx(raw)))
    raise ImportFileInvalid("upload a .json, .csv or .xlsx file")
