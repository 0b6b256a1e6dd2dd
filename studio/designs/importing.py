"""Read a design spec from an uploaded JSON, CSV or XLSX file.

CSV and XLSX hold two columns, `path` and `value` (one row per field, dotted paths with list
indices, as the CSV export writes them); JSON holds the spec document itself.

Everything here is bounded and linear in the size of the file, so an upload cannot stall a web
worker: the upload's size, the number of rows, the length of a cell, the JSON depth and, for
XLSX (a zip archive), the uncompressed size of its parts, checked from the archive's directory
before anything is decompressed. Each refusal names the limit (and the row)."""

import csv
import io
import zipfile
from typing import IO

from openpyxl import load_workbook

from studio.core.inputs import JsonInvalid, loads_json
from studio.designs.editor.codec import form_to_spec, rows_to_form

MAX_UPLOAD_BYTES = 2 * 1024 * 1024
# A design has about 150 fields; 2,000 rows leave room for many sites, racks and tiers.
MAX_ROWS = 2_000
MAX_PATH_CHARS = 200
MAX_CELL_CHARS = 10_000
# A legitimate design workbook (2,000 rows) expands to well under 1 MB of XML; 16 MB keeps
# openpyxl's memory (shared strings are read whole) far below the worker's budget. Python's zipfile
# stops at a member's declared size (and fails its CRC check), so the declared sizes bound what
# decompression can produce.
MAX_XLSX_UNCOMPRESSED_BYTES = 16 * 1024 * 1024
MAX_XLSX_MEMBERS = 200


class ImportFileInvalid(ValueError):
    pass


def _row_checked(number: int, path: str, value: str) -> tuple[str, str]:
    if number > MAX_ROWS:
        raise ImportFileInvalid(f"more than {MAX_ROWS:,} rows (the limit of a design file)")
    if len(path) > MAX_PATH_CHARS:
        raise ImportFileInvalid(
            f"row {number}: the path is longer than {MAX_PATH_CHARS:,} characters"
        )
    if len(value) > MAX_CELL_CHARS:
        raise ImportFileInvalid(
            f"row {number} ({path[:80]}): the value is longer than {MAX_CELL_CHARS:,} characters"
        )
    if "\x00" in path or "\x00" in value:
        raise ImportFileInvalid(f"row {number}: holds a NUL character")
    return path, value


def _is_header(path: str, value: str) -> bool:
    return path.strip().lower() == "path" and value.strip().lower() in ("value", "")


def _rows_from_csv(raw: bytes) -> list[tuple[str, str]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFileInvalid("the CSV file must be UTF-8 text") from exc
    reader = csv.reader(io.StringIO(text))
    rows: list[tuple[str, str]] = []
    number = 0
    try:
        for row in reader:
            number = reader.line_num
            if not row:
                continue
            if len(row) < 2:
                raise ImportFileInvalid(
                    f"row {number}: every CSV row needs two columns: path, value"
                )
            if not rows and _is_header(row[0], row[1]):
                continue
            rows.append(_row_checked(len(rows) + 1, row[0], row[1]))
    except csv.Error as exc:  # e.g. a field over the csv module's 131,072-character limit
        raise ImportFileInvalid(
            f"row {number + 1}: not readable as CSV ({exc}); a value may hold at most "
            f"{MAX_CELL_CHARS:,} characters"
        ) from exc
    return rows


def _check_xlsx_archive(raw: bytes) -> None:
    """Refuse a zip bomb from the archive's directory, before decompressing anything."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise ImportFileInvalid("not a readable XLSX workbook (not a zip archive)") from exc
    if len(members) > MAX_XLSX_MEMBERS:
        raise ImportFileInvalid(f"the XLSX archive holds more than {MAX_XLSX_MEMBERS} parts")
    total = sum(member.file_size for member in members)
    if total > MAX_XLSX_UNCOMPRESSED_BYTES:
        raise ImportFileInvalid(
            f"the XLSX workbook expands to {total // (1024 * 1024):,} MB; the limit is "
            f"{MAX_XLSX_UNCOMPRESSED_BYTES // (1024 * 1024)} MB uncompressed"
        )


def _cell_text(value) -> str:
    return "" if value is None else str(value)


def _rows_from_xlsx(raw: bytes) -> list[tuple[str, str]]:
    _check_xlsx_archive(raw)
    try:
        workbook = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a file that is not XLSX
        raise ImportFileInvalid(f"not a readable XLSX workbook ({type(exc).__name__})") from exc
    rows: list[tuple[str, str]] = []
    try:
        if not workbook.worksheets:
            raise ImportFileInvalid("the XLSX workbook has no sheet")
        sheet = workbook.worksheets[0]
        # Streaming (read-only mode), two columns only; stop at the row limit.
        for number, cells in enumerate(
            sheet.iter_rows(min_col=1, max_col=2, values_only=True), start=1
        ):
            if number > MAX_ROWS + 1:  # + 1: a header row
                raise ImportFileInvalid(f"more than {MAX_ROWS:,} rows (the limit of a design file)")
            path, value = [*cells, None, None][:2]
            if path is None:
                continue
            path_text, value_text = str(path), _cell_text(value)
            if not rows and _is_header(path_text, value_text):
                continue
            rows.append(_row_checked(len(rows) + 1, path_text, value_text))
    except ImportFileInvalid:
        raise
    except Exception as exc:  # a malformed part inside a readable archive
        raise ImportFileInvalid(f"not a readable XLSX workbook ({type(exc).__name__})") from exc
    finally:
        workbook.close()
    return rows


# Room for the form's other fields and the multipart framing around the file.
MAX_REQUEST_BYTES = MAX_UPLOAD_BYTES + 64 * 1024


def check_request_size(meta) -> None:
    """Refuse an upload request from its Content-Length, before its body is read or parsed
    (parsing a 10 MB multipart body alone costs a worker about a second)."""
    try:
        length = int(meta.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    if length > MAX_REQUEST_BYTES:
        raise ImportFileInvalid(f"file is larger than {MAX_UPLOAD_BYTES // 1024} KiB")


def _read_bounded(content: bytes | IO[bytes]) -> bytes:
    if isinstance(content, bytes | bytearray):
        raw = bytes(content)
    else:
        size = getattr(content, "size", None)
        if size is not None and size > MAX_UPLOAD_BYTES:
            raise ImportFileInvalid(f"file is larger than {MAX_UPLOAD_BYTES // 1024} KiB")
        raw = content.read(MAX_UPLOAD_BYTES + 1)
    if len(raw) > MAX_UPLOAD_BYTES:
        raise ImportFileInvalid(f"file is larger than {MAX_UPLOAD_BYTES // 1024} KiB")
    return raw


# ---- a sheet as a grid: the patch and variants imports, with sheet row numbers ------------

MAX_COLUMNS = 500  # a variants sheet: one column per spec path changed


def _cell_from_xlsx(value) -> str:
    """A cell as the text a user typed: 8192.0 (a number Excel stored as float) is 8192."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _checked_grid_row(number: int, cells: list[str]) -> tuple[int, list[str]]:
    if number > MAX_ROWS + 1:  # + 1: the header row
        raise ImportFileInvalid(f"more than {MAX_ROWS:,} rows (the limit of a design file)")
    if len(cells) > MAX_COLUMNS:
        raise ImportFileInvalid(f"row {number}: more than {MAX_COLUMNS} columns")
    for cell in cells:
        if len(cell) > MAX_CELL_CHARS:
            raise ImportFileInvalid(
                f"row {number}: a cell is longer than {MAX_CELL_CHARS:,} characters"
            )
        if "\x00" in cell:
            raise ImportFileInvalid(f"row {number}: holds a NUL character")
    return number, cells


def _grid_from_csv(raw: bytes) -> list[tuple[int, list[str]]]:
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ImportFileInvalid("the CSV file must be UTF-8 text") from exc
    reader = csv.reader(io.StringIO(text))
    grid = []
    try:
        for cells in reader:
            if any(cell.strip() for cell in cells):
                grid.append(_checked_grid_row(reader.line_num, cells))
    except csv.Error as exc:
        raise ImportFileInvalid(f"row {reader.line_num + 1}: not readable as CSV ({exc})") from exc
    return grid


def _grid_from_xlsx(raw: bytes) -> list[tuple[int, list[str]]]:
    _check_xlsx_archive(raw)
    try:
        workbook = load_workbook(io.BytesIO(raw), read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many types for a file that is not XLSX
        raise ImportFileInvalid(f"not a readable XLSX workbook ({type(exc).__name__})") from exc
    grid = []
    try:
        if not workbook.worksheets:
            raise ImportFileInvalid("the XLSX workbook has no sheet")
        rows = workbook.worksheets[0].iter_rows(max_col=MAX_COLUMNS + 1, values_only=True)
        for number, values in enumerate(rows, start=1):
            cells = [_cell_from_xlsx(value) for value in values]
            while cells and cells[-1] == "":
                cells.pop()
            if cells:
                grid.append(_checked_grid_row(number, cells))
    except ImportFileInvalid:
        raise
    except Exception as exc:  # a malformed part inside a readable archive
        raise ImportFileInvalid(f"not a readable XLSX workbook ({type(exc).__name__})") from exc
    finally:
        workbook.close()
    return grid


def grid_from_upload(name: str, content: bytes | IO[bytes]) -> list[tuple[int, list[str]]]:
    """The first sheet of a CSV / XLSX upload as (sheet row number, cell texts), empty rows
    left out, every bound of a design import applied."""
    raw = _read_bounded(content)
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if extension == "csv":
        return _grid_from_csv(raw)
    if extension == "xlsx":
        return _grid_from_xlsx(raw)
    raise ImportFileInvalid("upload a .csv or .xlsx file")


def spec_from_upload(name: str, content: bytes | IO[bytes]) -> dict:
    raw = _read_bounded(content)
    extension = name.rsplit(".", 1)[-1].lower() if "." in name else ""
    if extension == "json":
        try:
            doc = loads_json(raw)
        except JsonInvalid as exc:
            raise ImportFileInvalid(str(exc)) from exc
        if not isinstance(doc, dict):
            raise ImportFileInvalid("the JSON file must hold one design object")
        return doc
    if extension == "csv":
        return form_to_spec(rows_to_form(_rows_from_csv(raw)))
    if extension == "xlsx":
        return form_to_spec(rows_to_form(_rows_from_xlsx(raw)))
    raise ImportFileInvalid("upload a .json, .csv or .xlsx file")
