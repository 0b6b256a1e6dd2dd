"""Compare 2-4 designs side by side."""

from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import render

from studio.core.inputs import parse_id, plain_label
from studio.designs.selectors import designs_visible_to
from studio.reports import charts
from studio.reports.comparison import comparison_rows, differing_fields, stack_cells
from studio.runs.columns import design_columns
from studio.runs.figures import compared_figures

MAX_COMPARED = 4


@login_required
def compare(request):
    ids = [n for i in request.GET.getlist("design") if (n := parse_id(i)) is not None]
    if not 2 <= len(ids) <= MAX_COMPARED:
        return render(
            request,
            "reports/compare.html",
            {"problem": "Pick between 2 and 4 designs to compare."},
            status=400,
        )
    found = {d.pk: d for d in designs_visible_to(request.user).filter(pk__in=ids)}
    if len(found) != len(set(ids)):
        raise Http404("No such design in your teams")
    designs = [found[i] for i in dict.fromkeys(ids)]
    columns = design_columns(designs)
    rows = comparison_rows(columns)
    names = [plain_label(c.design.name) for c in columns]  # plain text in Plotly labels

    def build_figures() -> list[dict]:
        built = [
            charts.radar(rows, names),
            charts.cost_vs_time(columns, names),
            charts.scaling_curves(columns, names),
        ]
        figures = [f for f in built if f] + charts.metric_bars(rows, names)
        return [{**figure, "script_id": f"figure-{figure['id']}"} for figure in figures]

    # Built once per process for these runs and names, not on every request.
    figures = compared_figures(
        columns, names, build_figures, builder_version=charts.COMPARE_CHARTS_VERSION
    )
    context = {
        "columns": columns,
        "rows": rows,
        "figures": figures,
        "field_rows": differing_fields(columns),
        "stack_cells": stack_cells(columns),
    }
    return render(request, "reports/compare.html", context)
