"""Team scoping that cannot be forgotten (in the style of PostHog's base viewset).

Views subclass TeamScopedObjectMixin and name a selector that already filters by membership.
A subclass cannot override get_queryset (refused at class creation), so no view can widen the
scope by accident; objects outside the user's teams are simply not found (404). Writes then
check the role in the object's team (403 for a member without the role).
"""

import logging
from collections.abc import Callable

from django.contrib.auth.mixins import LoginRequiredMixin
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.views import View
from django.views.generic.detail import SingleObjectMixin

from studio.accounts.models import Role
from studio.accounts.selectors import user_has_role

security_log = logging.getLogger("studio.security")


class ScopingError(TypeError):
    pass


class TeamScopedObjectMixin(LoginRequiredMixin):
    scope_selector: Callable[..., QuerySet] | None = None
    # Dotted attribute path from the object to its team id, e.g. "project.team_id".
    team_id_path: str = "team_id"
    required_role: Role = Role.VIEWER

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "get_queryset" in cls.__dict__:
            raise ScopingError(
                f"{cls.__name__} overrides get_queryset; implement safely_get_queryset instead"
            )

    def get_queryset(self) -> QuerySet:
        if self.scope_selector is None:
            raise ScopingError(f"{type(self).__name__} has no scope_selector")
        return self.safely_get_queryset(type(self).scope_selector(self.request.user))

    def safely_get_queryset(self, queryset: QuerySet) -> QuerySet:
        return queryset

    def team_id_of(self, obj) -> int:
        value = obj
        for part in self.team_id_path.split("."):
            value = getattr(value, part)
        return value

    def require_role(self, obj, role: Role | None = None) -> None:
        needed = role or self.required_role
        if not user_has_role(self.request.user, self.team_id_of(obj), needed):
            # Logged, not written to the audit table: the request's transaction rolls back.
            security_log.warning(
                "authz.denied user=%s view=%s object=%s needed=%s",
                self.request.user.pk,
                type(self).__name__,
                obj.pk,
                needed,
            )
            raise PermissionDenied("Your role in this team does not allow this action.")


class ScopedActionView(TeamScopedObjectMixin, SingleObjectMixin, View):
    """A POST-only action on one team-scoped object (evaluate, retry, revert, ...): GET is
    refused with 405, the object is found through the scoped selector (404 outside the team)."""

    http_method_names = ["post", "options"]
