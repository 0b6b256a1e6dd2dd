from django.contrib import admin

from studio.runs.models import EngineRun


@admin.register(EngineRun)
class EngineRunAdmin(admin.ModelAdmin):
    list_display = ["pk", "revision", "status", "engine_version", "created_at", "finished_at"]
    list_filter = ["status"]
    readonly_fields = ["revision", "spec_hash", "results", "progress", "error"]
