"""The design spec as a spreadsheet: one row per spec path (path, value, unit, description,
allowed range or choices, all read from the engine's JSON Schema), a partial sheet applied as
a patch onto a base revision, and a variants sheet (one row per variant, one column per path).

A patch starts from the base revision's editor form, overwrites the paths the sheet names and
goes through the engine's one validation; an error names the sheet row and column it came from
(and the field). Nothing here writes: `studio.designs.services` creates the revisions."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from studio.core.formula_guard import unguarded
from studio.designs.editor.codec import (
    MODE,
    ON,
    FormIndex,
    form_to_spec,
    spec_to_form,
    switch_on_given,
    typed_value,
)
from studio.designs.editor.schema_tree import Choice, Group, Leaf, ListOf, spec_tree
from studio.designs.importing import ImportFileInvalid, grid_from_upload

PATH_COLUMN, VALUE_COLUMN = 1, 2  # the columns a spec sheet's import reads
NAME_COLUMN = "name"  # a variants sheet's optional column: the new design's name
BOUND_TEXT = {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}


class VariantMode:
    DESIGNS = "designs"
    REVISIONS = "revisions"
    CHOICES = [
        (DESIGNS, "a new design per row (in this project)"),
        (REVISIONS, "a new revision of this design per row"),
    ]


# ---- the schema node behind a path --------------------------------------------------------


def node_at(path: str):
    """The schema node of a dotted path (list items by index), or None for no such path."""
    node: Any = spec_tree()
    parts = path.split(".")
    index = 0
    while index < len(parts):
        part = parts[index]
        if isinstance(node, ListOf):
            if not (part.isascii() and part.isdigit() and len(part) < 7):
                return None
            node = node.item
            index += 1
            continue
        children = node.children if isinstance(node, Group) else None
        if isinstance(node, Choice):
            children = node.group.children
        if children is None:
            return None
        node = next((child for child in children if child.key == part), None)
        if node is None:
            return None
        index += 1
    return node


def allowed_text(node) -> str:
    if isinstance(node, Choice):
        return f"'{node.keyword}', or set the fields below {node.key}"
    if isinstance(node, Group):
        return "empty: leave out (null); or set the fields below"
    if not isinstance(node, Leaf):
        return ""
    parts = []
    if node.keyword is not None:
        parts.append(f"'{node.keyword}'")
    if node.choices and not node.kind.endswith("integer"):
        parts.append("one of " + ", ".join(node.choices))
    kind = node.kind.removeprefix("keyword-or-")
    if kind == "boolean":
        parts.append("true or false")
    if kind == "string-list":
        parts.append("comma-separated list")
    if node.bounds:
        kind_word = "whole number" if kind == "integer" else "number"
        limits = " and ".join(f"{BOUND_TEXT[k]} {v:,}" for k, v in node.bounds.items())
        parts.append(f"{kind_word} {limits}")
    elif kind in ("integer", "number"):
        parts.append("whole number" if kind == "integer" else "number")
    if node.nullable:
        parts.append("empty for none")
    return "; ".join(parts)


# ---- export -------------------------------------------------------------------------------


def _unit(node) -> str:
    return node.unit if isinstance(node, Leaf) else ""


def spec_rows(spec: Mapping[str, Any]) -> list[dict]:
    """One row per spec path, in editor order, values typed (a number stays a number). A
    choice left on its keyword ('auto') is a row of its own holding the keyword."""
    rows = []
    for key, text in spec_to_form(spec).items():
        if key.startswith(MODE):
            if text != "explicit":
                path = key.removeprefix(MODE)
                rows.append(_row(path, node_at(path), text))
        elif not key.startswith(ON):
            node = node_at(key)
            rows.append(_row(key, node, typed_value(node, text) if text != "" else None))
    return rows


def _row(path: str, node, value) -> dict:
    if isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    return {
        "path": path,
        "value": value,
        "unit": _unit(node),
        "description": getattr(node, "description", ""),
        "allowed": allowed_text(node),
    }


# ---- import: errors -----------------------------------------------------------------------


@dataclass(frozen=True)
class SheetError:
    row: int | None  # the sheet row (1 = the header), None: the whole sheet
    column: int | None  # 1-based
    column_name: str
    field: str  # the spec path
    message: str

    @property
    def cell(self) -> str:
        if self.row is None:
            return ""
        if not self.column:
            return f"row {self.row}"
        return f"row {self.row}, column {_column_letter(self.column)} ({self.column_name})"

    def as_dict(self) -> dict:
        return {
            "row": self.row,
            "column": _column_letter(self.column) if self.column else None,
            "column_name": self.column_name,
            "field": self.field,
            "message": self.message,
        }

    def __str__(self) -> str:
        where = ", ".join(part for part in (self.cell, self.field) if part)
        return f"{where}: {self.message}" if where else self.message


def _column_letter(number: int) -> str:
    letters = ""
    while number:
        number, rest = divmod(number - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


class SheetInvalid(ValueError):
    """The sheet cannot be applied; `errors` names each row, column and field."""

    def __init__(self, errors: list[SheetError]):
        self.errors = errors
        super().__init__("; ".join(str(error) for error in errors))


# ---- import: one cell onto a form ---------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    row: int
    column: int
    column_name: str
    path: str
    text: str


def _apply(form: dict[str, str], cell: Cell) -> SheetError | None:
    """Write one cell onto editor form data; an error when the path or value cannot apply."""
    node = node_at(cell.path) if cell.path else None
    text = cell.text.strip()
    if isinstance(node, Leaf):
        form[cell.path] = text
        return None
    if isinstance(node, Choice) and text in (node.keyword, ""):
        _drop_below(form, cell.path)
        form[MODE + cell.path] = node.keyword
        return None
    if isinstance(node, Group) and text == "" and node.optional:
        _drop_below(form, cell.path)
        form.pop(ON + cell.path, None)
        return None
    return _path_error(cell, node)


def _path_error(cell: Cell, node) -> SheetError:
    if node is None:
        message = "not a spec path (the spec sheet export and /docs/spec/ list the paths)"
    elif isinstance(node, ListOf):
        message = f"a list: give its items' fields ({cell.path}.0.<field>)"
    else:
        message = f"allowed: {allowed_text(node)}"
    return SheetError(cell.row, cell.column, cell.column_name, cell.path, message)


def _drop_below(form: dict[str, str], path: str) -> None:
    prefix = path + "."
    for key in [k for k in form if k.removeprefix(ON).removeprefix(MODE).startswith(prefix)]:
        del form[key]


def patched_spec(base_spec: Mapping[str, Any], cells: list[Cell]) -> tuple[dict, list]:
    """The base spec with the cells applied (not yet validated), and the cell errors."""
    form = spec_to_form(base_spec)
    errors = [error for cell in cells if (error := _apply(form, cell)) is not None]
    switch_on_given(form, FormIndex(form))
    return form_to_spec(form), errors


def errors_at_cells(engine_errors: list[dict], cells: list[Cell]) -> list[SheetError]:
    """Engine validation errors placed on the sheet cell that set the field (the whole sheet
    when no cell did: a cross-field rule, or a field the patch did not touch)."""
    by_path = {cell.path: cell for cell in cells}
    placed = []
    for error in engine_errors:
        path = error.get("path", "")
        cell = (
            by_path.get(path)
            or _cell_above(path, by_path)
            or _cell_named_in(error["message"], by_path)
        )
        if cell is None:
            placed.append(SheetError(None, None, "", path, error["message"]))
        else:
            placed.append(
                SheetError(cell.row, cell.column, cell.column_name, path, error["message"])
            )
    return placed


def _cell_above(path: str, by_path: dict[str, Cell]) -> Cell | None:
    """A cell for a field below the error's path (an object-level rule names the object)."""
    if not path:
        return None
    prefix = path + "."
    return next((cell for p, cell in by_path.items() if p.startswith(prefix)), None)


def _cell_named_in(message: str, by_path: dict[str, Cell]) -> Cell | None:
    """A cross-field rule (tp x pp x dp = compute.gpu_count) on the cell the message names."""
    return next((cell for p, cell in by_path.items() if p and p in message), None)


# ---- import: reading the sheets -----------------------------------------------------------


def _is_header(cells: list[str]) -> bool:
    return bool(cells) and cells[0].strip().lower() == "path"


def patch_cells(filename: str, content) -> list[Cell]:
    """A spec sheet (columns path, value; any other column ignored) as cells to apply. A
    path given twice is an error naming both rows."""
    grid = grid_from_upload(filename, content)
    if grid and _is_header(grid[0][1]):
        grid = grid[1:]
    cells, errors, seen = [], [], {}
    for number, values in grid:
        path = values[0].strip() if values else ""
        value = values[1] if len(values) > 1 else ""
        if not path:
            errors.append(SheetError(number, PATH_COLUMN, "path", "", "a path is required"))
            continue
        if path in seen:
            message = f"given twice (rows {seen[path]} and {number}); keep one"
            errors.append(SheetError(number, PATH_COLUMN, "path", path, message))
            continue
        seen[path] = number
        cells.append(Cell(number, VALUE_COLUMN, "value", path, unguarded(value)))
    if errors:
        raise SheetInvalid(errors)
    if not cells:
        raise ImportFileInvalid("the sheet holds no rows: give path, value rows")
    return cells


@dataclass(frozen=True)
class Variant:
    row: int
    name: str
    cells: list[Cell]
    name_column: int | None = None


def variant_rows(filename: str, content) -> list[Variant]:
    """A variants sheet: a header row of spec paths (and optionally `name`), then one row per
    variant. An empty cell leaves the base value."""
    grid = grid_from_upload(filename, content)
    if len(grid) < 2:
        raise ImportFileInvalid(
            "a variants sheet needs a header row of spec paths and at least one variant row"
        )
    (_, header), body = grid[0], grid[1:]
    header = [name.strip() for name in header]
    _check_header(header)
    name_column = header.index(NAME_COLUMN) + 1 if NAME_COLUMN in header else None
    variants = []
    errors = [
        SheetError(number, len(header) + 1, "(no header)", "", "a value in a column with no path")
        for number, values in body
        if any(text.strip() for text in values[len(header) :])
    ]
    if errors:
        raise SheetInvalid(errors)
    for number, values in body:
        name, cells = "", []
        for column, (path, text) in enumerate(zip(header, values, strict=False), start=1):
            if path == NAME_COLUMN:
                name = text.strip()
            elif text.strip() != "":
                cells.append(Cell(number, column, path, path, unguarded(text)))
        variants.append(Variant(number, name, cells, name_column))
    return variants


def _check_header(header: list[str]) -> None:
    errors, seen = [], {}
    for column, path in enumerate(header, start=1):
        if path == NAME_COLUMN:
            continue
        node = node_at(path) if path else None
        if path in seen:
            message = (
                f"column given twice ({_column_letter(seen[path])} and {_column_letter(column)})"
            )
            errors.append(SheetError(1, column, path, path, message))
        elif node is None or isinstance(node, ListOf | Group):
            cell = Cell(1, column, path or "(empty)", path, "")
            errors.append(_path_error(cell, node) if node is not None else _header_error(cell))
        seen.setdefault(path, column)
    if errors:
        raise SheetInvalid(errors)


def _header_error(cell: Cell) -> SheetError:
    message = (
        "not a spec path; the header holds spec paths (e.g. compute.gpu_count) and "
        "optionally `name`"
    )
    return SheetError(1, cell.column, cell.column_name, cell.path, message)
