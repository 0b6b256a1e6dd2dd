"""Filters of the API lists. Projects, designs and runs use the FilterSets of their HTML lists
(`studio.designs.filters`, `studio.runs.filters`); a value a filter cannot take, or a query
parameter that is no filter of the list, is a 400 naming the parameter (a misspelt `?desing=`
is never silently ignored)."""

from django_filters.rest_framework import DjangoFilterBackend
from rest_framework.exceptions import ValidationError

from studio.catalog.models import TeamCatalogEntry
from studio.core.filters import DefaultedFilterSet, IdFilter
from studio.designs.filters import DesignFilter, ProjectFilter
from studio.reviews.models import Comment, ReviewRequest
from studio.runs.filters import EngineRunFilter

__all__ = ["DesignFilter", "EngineRunFilter", "ProjectFilter", "StrictFilterBackend"]

# Parameters every list takes besides its filters: pagination and DRF's format override.
LIST_PARAMETERS = frozenset({"limit", "offset", "format"})


def parameter_names(filterset) -> set[str]:
    """The query parameters a FilterSet reads (a date range reads `<name>_after/_before`)."""
    names = set()
    for name, field in filterset.form.fields.items():
        suffixes = getattr(field.widget, "suffixes", None) or [""]
        names.update(f"{name}_{suffix}" if suffix else name for suffix in suffixes)
    return names


class StrictFilterBackend(DjangoFilterBackend):
    """Filters lists only (a detail URL finds an archived object too) and refuses unknown
    query parameters."""

    def filter_queryset(self, request, queryset, view):
        if getattr(view, "action", None) != "list":
            return queryset
        filterset = self.get_filterset(request, queryset, view)
        known = LIST_PARAMETERS | (parameter_names(filterset) if filterset else set())
        unknown = sorted(set(request.query_params) - known)
        if unknown:
            raise ValidationError(
                {
                    name: [f"not a filter of this list; use one of {sorted(known)}"]
                    for name in unknown
                }
            )
        return super().filter_queryset(request, queryset, view)


class TeamCatalogEntryFilter(DefaultedFilterSet):
    team = IdFilter(field_name="team_id")

    class Meta:
        model = TeamCatalogEntry
        fields = ["team", "kind"]


class ReviewFilter(DefaultedFilterSet):
    project = IdFilter(field_name="project_id")
    design = IdFilter(field_name="designs__id", distinct=True)

    class Meta:
        model = ReviewRequest
        fields = ["project", "design"]


class ReviewCommentFilter(DefaultedFilterSet):
    review = IdFilter(field_name="review_id")

    class Meta:
        model = Comment
        fields = ["review", "anchor_kind"]
