"""Reads of the catalog as a team sees it: built-in entries plus the team's own."""

from django.db.models import QuerySet

from models_engine import Catalog, catalog_with
from studio.catalog.models import TeamCatalogEntry


def team_entries_visible_to(user) -> QuerySet[TeamCatalogEntry]:
    if not user.is_authenticated:
        return TeamCatalogEntry.objects.none()
    return TeamCatalogEntry.objects.filter(team__memberships__user=user).select_related("team")


def team_catalog_entries(team_id: int) -> dict[str, list[dict]]:
    """{kind: [entry data]} of one team, in a stable order."""
    grouped: dict[str, list[dict]] = {}
    for entry in TeamCatalogEntry.objects.filter(team_id=team_id).order_by("kind", "entry_id"):
        grouped.setdefault(entry.kind, []).append(entry.data)
    return grouped


def team_catalog(team_id: int) -> Catalog:
    return catalog_with(team_catalog_entries(team_id))
