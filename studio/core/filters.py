"""Filter parts shared by the HTML lists and the API lists (django-filter)."""

import django_filters

from studio.core.inputs import IdField


class IdFilter(django_filters.Filter):
    """An id compared within the caller's scope: another team's id and a missing id give the same
    empty list (no existence oracle); a value that is not an id is a field error naming it."""

    field_class = IdField


class DefaultedFilterSet(django_filters.FilterSet):
    """A FilterSet whose absent parameters take `defaults` (e.g. archived objects hidden unless
    asked for), so the HTML list and the API list start from the same view."""

    defaults: dict[str, str] = {}

    def __init__(self, data=None, *args, **kwargs):
        merged = dict(self.defaults)
        if data is not None:
            merged.update({key: data.get(key) for key in data})
        super().__init__(merged, *args, **kwargs)
