"""Run pages: start an evaluation, watch its progress, read its results."""

from django.contrib import messages
from django.shortcuts import redirect
from django.views.generic import DetailView

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView, TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.designs.selectors import designs_visible_to
from studio.runs import services
from studio.runs.figures import run_figure_sections
from studio.runs.headline import headline_cards
from studio.runs.sections import section_blocks
from studio.runs.selectors import results_outdated, runs_visible_to, typed_results
from studio.runs.tables import available_tables


def results_context(run) -> dict:
    """What the results templates read: the typed results (None for an unfinished run or
    results of an older engine version, which must be re-run), the figures and, per section,
    the blocks built from them."""
    results = typed_results(run)
    return {
        "results": results,
        "results_outdated": results_outdated(run),
        "sections": run_figure_sections(run, results) if results else [],
        "section_blocks": section_blocks(results, run),
        "tables": available_tables(results),
        "headline_cards": headline_cards(results),
    }


class DesignEvaluateView(ScopedActionView):
    """POST only: evaluate the latest revision of a design."""

    scope_selector = designs_visible_to
    team_id_path = "project.team_id"

    def post(self, request, *args, **kwargs):
        design = self.get_object()
        self.require_role(design, Role.EDITOR)
        if design.latest_revision is None:
            messages.error(request, "This design has no revision yet: save one, then evaluate.")
            return redirect("design-detail", pk=design.pk)
        run = services.run_enqueue(actor=request.user, revision=design.latest_revision)
        return redirect("run-detail", pk=run.pk)


class RunDetailView(TeamScopedObjectMixin, DetailView):
    scope_selector = runs_visible_to
    team_id_path = "revision.design.project.team_id"
    context_object_name = "run"

    def get_template_names(self):
        if self.request.htmx:
            return ["runs/_run_status.html"]
        return ["runs/run_detail.html"]

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        run = self.object
        context.update(results_context(run))
        context["can_edit"] = user_has_role(
            self.request.user, run.revision.design.project.team_id, Role.EDITOR
        )
        context["progress_completed"] = len(run.progress.get("completed", []))
        context["progress_total"] = len(run.progress.get("engines", [])) or 1
        return context


class RunRetryView(ScopedActionView):
    """POST only: run the same revision again (a failed run, or to bypass the cache)."""

    scope_selector = runs_visible_to
    team_id_path = "revision.design.project.team_id"

    def post(self, request, *args, **kwargs):
        run = self.get_object()
        self.require_role(run, Role.EDITOR)
        retry = services.run_retry(actor=request.user, run=run)
        return redirect("run-detail", pk=retry.pk)
