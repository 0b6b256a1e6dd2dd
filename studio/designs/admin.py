from django.contrib import admin

from studio.designs.models import Design, DesignRevision, Project


@admin.register(Project)
class ProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "team", "created_at"]
    list_filter = ["team"]


@admin.register(Design)
class DesignAdmin(admin.ModelAdmin):
    list_display = ["name", "project", "created_at"]


@admin.register(DesignRevision)
class DesignRevisionAdmin(admin.ModelAdmin):
    list_display = ["design", "number", "spec_hash", "author", "created_at"]
    readonly_fields = ["design", "number", "spec", "spec_hash", "author", "message"]
