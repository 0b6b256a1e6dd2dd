"""The project, design and revision-diff pages. They show runs (each design's latest results,
a design's runs, the headline change between two revisions), so they live in runs, above
designs in the layers; creating and editing designs stays in `studio.designs`."""

from django.db.models import Count
from django.http import Http404
from django.views.generic import DetailView

from models_engine import spec_diff
from studio.accounts.models import Role
from studio.accounts.scoping import TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.core.inputs import parse_int
from studio.designs.forms import design_create_forms
from studio.designs.selectors import designs_visible_to, projects_visible_to
from studio.runs.columns import design_columns
from studio.runs.headline import headline_cards, headline_changes, headline_of
from studio.runs.selectors import latest_done_run, results_outdated, runs_visible_to, typed_results


class ProjectDetailView(TeamScopedObjectMixin, DetailView):
    """A project's designs with their latest headline, and the forms to create one (each
    posts to its own view in `studio.designs.views`)."""

    scope_selector = projects_visible_to
    template_name = "designs/project_detail.html"
    context_object_name = "project"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        designs = list(self.object.designs.annotate(revision_count=Count("revisions")))
        columns = {c.design.pk: c for c in design_columns(designs)}
        context["designs"] = [
            {"design": d, "revisions": d.revision_count, "column": columns[d.pk]} for d in designs
        ]
        context.update(design_create_forms(self.object))
        context["can_edit"] = user_has_role(self.request.user, self.object.team_id, Role.EDITOR)
        return context


class DesignDetailView(TeamScopedObjectMixin, DetailView):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    template_name = "designs/design_detail.html"
    context_object_name = "design"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["revision"] = self.object.latest_revision
        context["revisions"] = self.object.revisions.select_related("author")
        runs = runs_visible_to(self.request.user).filter(revision__design=self.object)
        context["runs"] = runs.defer("results")[:10]  # the list shows status, not results
        latest_done = latest_done_run(runs)
        context["latest_done"] = latest_done
        context["headline_cards"] = headline_cards(typed_results(latest_done))
        context["latest_outdated"] = results_outdated(latest_done)
        context["can_edit"] = user_has_role(
            self.request.user, self.object.project.team_id, Role.EDITOR
        )
        return context


class RevisionDiffView(TeamScopedObjectMixin, DetailView):
    """Any two revisions of a design side by side, with the change of their latest results."""

    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    context_object_name = "design"
    template_name = "designs/diff.html"

    def _revision(self, number: str | None, fallback):
        if number is None:
            return fallback
        parsed = parse_int(number, maximum=2**31 - 1)
        if parsed is None:
            raise Http404("Revision numbers are whole numbers")
        revision = self.object.revisions.filter(number=parsed).first()
        if revision is None:
            raise Http404("No such revision")
        return revision

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        revisions = list(self.object.revisions.order_by("-number"))
        if not revisions:
            raise Http404("This design has no revision yet")
        after = self._revision(self.request.GET.get("to"), revisions[0])
        before = self._revision(
            self.request.GET.get("from"), revisions[1] if len(revisions) > 1 else revisions[0]
        )
        before_run, after_run = latest_done_run(before.runs), latest_done_run(after.runs)
        context.update(
            revisions=revisions,
            before=before,
            after=after,
            changes=spec_diff(before.spec, after.spec),
            headline=headline_changes(headline_of(before_run), headline_of(after_run)),
            before_run=before_run,
            after_run=after_run,
        )
        return context
