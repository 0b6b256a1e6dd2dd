"""The filter of run lists (design, project, status, revision number, creation date), used by
the design page's run list and the REST API alike."""

import django_filters
from django import forms

from studio.core.filters import DefaultedFilterSet, IdFilter
from studio.runs.models import EngineRun


class RevisionNumberFilter(django_filters.Filter):
    field_class = forms.IntegerField


class EngineRunFilter(DefaultedFilterSet):
    design = IdFilter(field_name="revision__design_id")
    project = IdFilter(field_name="revision__design__project_id")
    revision = RevisionNumberFilter(
        field_name="revision__number",
        min_value=1,
        max_value=2**31 - 1,  # DesignRevision.number is a PositiveIntegerField
        help_text="revision number as shown (r3: 3)",
    )
    created = django_filters.DateFromToRangeFilter(
        field_name="created_at", help_text="created_after / created_before: YYYY-MM-DD"
    )

    class Meta:
        model = EngineRun
        fields = ["design", "project", "status", "revision", "created"]
