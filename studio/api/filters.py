"""Filters of the API lists. An id filter is a plain number compared within the caller's scope:
another team's id and a missing id give the same empty list (no existence oracle), and a value
that is not an id is a 400 naming the parameter."""

import django_filters

from studio.catalog.models import TeamCatalogEntry
from studio.core.inputs import IdField
from studio.designs.models import Design, Project
from studio.runs.models import EngineRun


class IdFilter(django_filters.Filter):
    field_class = IdField


class ProjectFilter(django_filters.FilterSet):
    team = IdFilter(field_name="team_id")

    class Meta:
        model = Project
        fields = ["team"]


class DesignFilter(django_filters.FilterSet):
    project = IdFilter(field_name="project_id")

    class Meta:
        model = Design
        fields = ["project"]


class EngineRunFilter(django_filters.FilterSet):
    revision = IdFilter(field_name="revision_id")

    class Meta:
        model = EngineRun
        fields = ["status", "revision"]


class TeamCatalogEntryFilter(django_filters.FilterSet):
    team = IdFilter(field_name="team_id")

    class Meta:
        model = TeamCatalogEntry
        fields = ["team", "kind"]
