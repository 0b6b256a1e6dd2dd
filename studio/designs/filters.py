"""The filters of the project and design lists, one FilterSet each, used by the HTML pages and
the REST API alike (`studio.api` imports them)."""

import django_filters
from django.db.models import Q, QuerySet

from studio.core.filters import DefaultedFilterSet, IdFilter
from studio.designs.models import Design, Project

ARCHIVED_CHOICES = [
    ("false", "active only"),
    ("true", "archived only"),
    ("all", "active and archived"),
]


class ArchivedFilter(django_filters.ChoiceFilter):
    """`archived=false` (the default), `true` or `all`. `archived_q` says what "archived" is for
    the model (a design is also archived when its project is)."""

    def __init__(self, *args, archived_q: Q, **kwargs):
        self.archived_q = archived_q
        kwargs.setdefault("help_text", "false (default): active only; true: archived; all: both")
        kwargs.setdefault("error_messages", {"invalid_choice": "one of false (default), true, all"})
        super().__init__(*args, choices=ARCHIVED_CHOICES, **kwargs)

    def filter(self, qs: QuerySet, value) -> QuerySet:
        if value == "true":
            return qs.filter(self.archived_q)
        if value == "all":
            return qs
        return qs.exclude(self.archived_q)


class ProjectFilter(DefaultedFilterSet):
    defaults = {"archived": "false"}
    team = IdFilter(field_name="team_id")
    archived = ArchivedFilter(archived_q=Q(archived_at__isnull=False))
    created = django_filters.DateFromToRangeFilter(
        field_name="created_at", help_text="created_after / created_before: YYYY-MM-DD"
    )

    class Meta:
        model = Project
        fields = ["team", "archived", "created"]


class DesignFilter(DefaultedFilterSet):
    defaults = {"archived": "false"}
    project = IdFilter(field_name="project_id")
    archived = ArchivedFilter(
        archived_q=Q(archived_at__isnull=False) | Q(project__archived_at__isnull=False)
    )
    created = django_filters.DateFromToRangeFilter(
        field_name="created_at", help_text="created_after / created_before: YYYY-MM-DD"
    )

    class Meta:
        model = Design
        fields = ["project", "archived", "created"]
