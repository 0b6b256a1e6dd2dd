"""The validation page: readable by any logged-in user (it shows published references and the
engines' errors, no team data). A filter value no reference has is a 400 naming it."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from models_engine import validation_table
from studio.reports.validation import FilterError, Selection, panel_context, parse_selection


@login_required
def validation_page(request):
    table = validation_table()
    try:
        selection = parse_selection(request.GET, table)
    except FilterError as error:
        context = {**panel_context(Selection(), table), "filter_errors": error.errors}
        return render(request, "reports/validation.html", context, status=400)
    return render(request, "reports/validation.html", panel_context(selection, table))
