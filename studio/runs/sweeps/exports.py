"""Every variant of a finished sweep as CSV (streamed, chunk by chunk) or XLSX (openpyxl's
write-only mode, up to Excel's row limit): index, each swept input, valid / why not, feasible,
and every metric with its unit in the header."""

import csv

import numpy as np
from django.http import HttpResponse, StreamingHttpResponse

import models_engine
from studio.runs.models import Sweep
from studio.runs.sweeps.execution import sweep_chunk_columns
from studio.runs.sweeps.tables import metric_label

XLSX_MAX_ROWS = 1_048_575  # Excel's sheet limit less the header
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class ExportTooLarge(ValueError):
    pass


class _Echo:
    def write(self, value):
        return value


def _safe(value):
    """Text that a spreadsheet would run as a formula gets a leading apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def _header(grid) -> list[str]:
    return [
        "variant",
        *grid.paths,
        "valid",
        "feasible",
        *map(metric_label, models_engine.SWEEP_METRICS),
    ]


def _rows(sweep: Sweep):
    definition = models_engine.SweepDefinition.model_validate(sweep.definition)
    grid = models_engine.VariantGrid.of(definition)
    yield _header(grid)
    chunks = sorted(sweep_chunk_columns(sweep), key=lambda c: c.start)
    for chunk in chunks:
        indices = np.arange(chunk.start, chunk.stop)
        digits = grid.digits(indices)
        feasible, _ = models_engine.sweep_feasibility(definition, chunk.metrics, chunk.invalid)
        columns = [chunk.metrics[m] for m in models_engine.SWEEP_METRICS]
        for row, index in enumerate(indices):
            code = int(chunk.invalid[row])
            yield [
                int(index),
                *(_safe(grid.values[a][d]) for a, d in enumerate(digits[row])),
                "yes" if code == -1 else _safe(chunk.reasons[code]),
                "yes" if feasible[row] else "no",
                *(None if np.isnan(c[row]) else float(c[row]) for c in columns),
            ]


def sweep_csv_response(sweep: Sweep) -> StreamingHttpResponse:
    writer = csv.writer(_Echo())
    response = StreamingHttpResponse(
        (writer.writerow(row) for row in _rows(sweep)), content_type="text/csv"
    )
    response["Content-Disposition"] = f'attachment; filename="sweep-{sweep.pk}-variants.csv"'
    return response


def sweep_xlsx_response(sweep: Sweep) -> HttpResponse:
    import io

    from openpyxl import Workbook

    if sweep.total_variants > XLSX_MAX_ROWS:
        raise ExportTooLarge(
            f"{sweep.total_variants:,} variants do not fit in one Excel sheet "
            f"({XLSX_MAX_ROWS:,} rows): download the CSV instead."
        )
    book = Workbook(write_only=True)
    sheet = book.create_sheet("variants")
    for row in _rows(sweep):
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    response = HttpResponse(
        buffer.getvalue(),
        content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    )
    response["Content-Disposition"] = f'attachment; filename="sweep-{sweep.pk}-variants.xlsx"'
    return response
