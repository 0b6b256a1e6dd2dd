"""The catalog page: built-in hardware with sources, plus a team's own entries."""

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render

from models_engine import KINDS
from studio.accounts.models import Role
from studio.accounts.selectors import teams_of, user_has_role
from studio.catalog import services
from studio.catalog.forms import CatalogEntryForm, MeasurementUploadForm, PriceOverrideForm
from studio.catalog.presentation import catalog_tables
from studio.catalog.selectors import team_catalog, team_entries_visible_to
from studio.core.inputs import parse_id


def _team_from_request(request):
    teams = teams_of(request.user)
    team_id = request.GET.get("team") or request.POST.get("team")
    if team_id:
        # Another team's id and a missing or malformed one: the same 404.
        number = parse_id(team_id)
        team = teams.filter(pk=number).first() if number is not None else None
        if team is None:
            raise Http404("No such team")
        return team, teams
    return teams.first(), teams


@login_required
def catalog_page(request):
    team, teams = _team_from_request(request)
    errors, submitted = {}, {"kind": "gpus", "data": "", "form": ""}
    if request.method == "POST":
        if team is None or not user_has_role(request.user, team.pk, Role.EDITOR):
            raise PermissionDenied("Adding catalog entries needs the editor role in the team.")
        fields = (
            "form",
            "kind",
            "data",
            "catalog_id",
            "unit_price_usd",
            "quote",
            "quote_date",
            "gpu_id",
        )
        submitted = {key: request.POST.get(key, "") for key in fields}  # shown back as typed
        errors = _save_catalog_form(request, team, submitted["form"])
        if not errors:
            return redirect(f"{request.path}?team={team.pk}")
    entries = team_entries_visible_to(request.user).filter(team=team) if team else []
    team_ids: dict[str, set[str]] = {}
    for entry in entries:
        team_ids.setdefault(entry.kind, set()).add(entry.entry_id)
    catalog = team_catalog(team.pk) if team else team_catalog(0)
    return render(
        request,
        "catalog/catalog.html",
        {
            "team": team,
            "teams": teams,
            "tables": catalog_tables(catalog, team_ids),
            "kinds": KINDS,
            "errors": errors,
            "submitted": submitted,
        },
    )


FORMS = {
    "price": (PriceOverrideForm, services.team_price_override),
    "measurement": (MeasurementUploadForm, services.team_gpu_measurement),
}


def _save_catalog_form(request, team, which: str) -> dict:
    """Save the posted price, GPU measurement or entry; {field: [messages]} when refused."""
    form_class, save = FORMS.get(which, (CatalogEntryForm, services.team_entry_create))
    form = form_class(request.POST, request.FILES)
    if not form.is_valid():
        return form.errors
    try:
        save(actor=request.user, team=team, **form.cleaned_data)
    except services.CatalogEntryInvalid as exc:
        return exc.errors
    return {}
