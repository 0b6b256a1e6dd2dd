from django.contrib import admin

from studio.catalog.models import TeamCatalogEntry


@admin.register(TeamCatalogEntry)
class TeamCatalogEntryAdmin(admin.ModelAdmin):
    list_display = ["entry_id", "kind", "team", "created_at"]
    list_filter = ["kind", "team"]
