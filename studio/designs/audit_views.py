"""A project's history: who changed what, and when (from the audit log)."""

from django.views.generic import DetailView

from studio.accounts.scoping import TeamScopedObjectMixin
from studio.designs.selectors import projects_visible_to


class ProjectHistoryView(TeamScopedObjectMixin, DetailView):
    scope_selector = projects_visible_to
    context_object_name = "project"
    template_name = "designs/project_history.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["events"] = self.object.audit_events.select_related("actor")[:500]
        return context
