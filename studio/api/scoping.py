"""The API's scoped base viewset: same rule as the HTML views, structurally enforced."""

from collections.abc import Callable

from django.db.models import QuerySet
from rest_framework import viewsets
from rest_framework.exceptions import PermissionDenied

from studio.accounts.models import Role
from studio.accounts.scoping import ScopingError
from studio.accounts.selectors import user_has_role
from studio.core.inputs import IdConverter


class TeamScopedViewSet(viewsets.GenericViewSet):
    scope_selector: Callable[..., QuerySet] | None = None
    team_id_path = "team_id"
    write_role = Role.EDITOR
    # Ids in API paths: ASCII digits within bigint; anything else does not route (404).
    lookup_value_regex = IdConverter.regex

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "get_queryset" in cls.__dict__:
            raise ScopingError(f"{cls.__name__} overrides get_queryset; use safely_get_queryset")

    def get_queryset(self) -> QuerySet:
        if self.scope_selector is None:
            raise ScopingError(f"{type(self).__name__} has no scope_selector")
        return self.safely_get_queryset(type(self).scope_selector(self.request.user))

    def safely_get_queryset(self, queryset: QuerySet) -> QuerySet:
        return queryset

    def require_team_role(self, team_id: int, role: Role | None = None) -> None:
        if not user_has_role(self.request.user, team_id, role or self.write_role):
            raise PermissionDenied("Your role in this team does not allow this action.")
