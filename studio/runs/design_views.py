"""The project, design and revision-diff pages. They show runs (each design's latest results,
a design's runs, the headline change between two revisions), so they live in runs, above
designs in the layers; creating and editing designs stays in `studio.designs`."""

import json

from django.db.models import Count
from django.http import Http404
from django.shortcuts import render
from django.views.generic import DetailView

from models_engine import spec_diff
from studio.accounts.models import Role
from studio.accounts.scoping import TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.core.inputs import parse_int
from studio.designs.filters import DesignFilter
from studio.designs.forms import design_create_forms, design_sheet_forms
from studio.designs.selectors import designs_visible_to, projects_visible_to
from studio.runs.columns import design_columns
from studio.runs.cost_change import cost_change
from studio.runs.evidence import run_evidence
from studio.runs.filters import EngineRunFilter
from studio.runs.headline import HEADLINE_METRICS, headline_cards, headline_changes, headline_of
from studio.runs.models import RunStatus
from studio.runs.selectors import latest_done_run, results_outdated, runs_visible_to, typed_results


def _filtered_page(view, filterset):
    """The page, or a 400 naming the filter parameter that cannot take its value (the same
    FilterSet, and the same answer, as the API list)."""
    if not filterset.is_valid():
        problem = "; ".join(f"{k}: {' '.join(v)}" for k, v in filterset.errors.items())
        return render(view.request, "400.html", {"problem": problem}, status=400)
    return view.render_to_response(view.get_context_data(object=view.object))


class ProjectDetailView(TeamScopedObjectMixin, DetailView):
    """A project's designs with their latest headline, and the forms to create one (each
    posts to its own view in `studio.designs.views`)."""

    scope_selector = projects_visible_to
    template_name = "designs/project_detail.html"
    context_object_name = "project"

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        self.listed = self._design_filter()
        return _filtered_page(self, self.listed)

    def _design_filter(self) -> DesignFilter:
        data = self.request.GET.copy()
        if self.object.archived_at is not None:
            data.setdefault("archived", "all")  # an archived project still shows its designs
        return DesignFilter(data, queryset=self.object.designs.all())

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        designs = list(self.listed.qs.annotate(revision_count=Count("revisions")))
        columns = {c.design.pk: c for c in design_columns(designs)}
        context["designs"] = [
            {"design": d, "revisions": d.revision_count, "column": columns[d.pk]} for d in designs
        ]
        context["archived_filter"] = self.listed.form.cleaned_data["archived"]
        context["archived_count"] = self.object.designs.filter(archived_at__isnull=False).count()
        context.update(design_create_forms(self.object))
        context["can_edit"] = user_has_role(self.request.user, self.object.team_id, Role.EDITOR)
        context["is_owner"] = user_has_role(self.request.user, self.object.team_id, Role.OWNER)
        return context


class DesignDetailView(TeamScopedObjectMixin, DetailView):
    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    template_name = "designs/design_detail.html"
    context_object_name = "design"

    def get(self, request, *args, **kwargs):
        self.object = self.get_object()
        self.runs = runs_visible_to(request.user).filter(revision__design=self.object)
        self.listed = EngineRunFilter(request.GET, queryset=self.runs)
        return _filtered_page(self, self.listed)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["revision"] = self.object.latest_revision
        if context["revision"] is not None:
            # The same JSON a user downloads (spec.json) and imports, not Python's repr.
            context["spec_json"] = json.dumps(context["revision"].spec, indent=2)
        context["revisions"] = self.object.revisions.select_related("author")
        runs = self.runs
        context["runs"] = self.listed.qs.defer("results")[:10]  # status, not results
        context["run_status"] = self.listed.form.cleaned_data.get("status") or ""
        context["run_status_choices"] = [("", "all"), *RunStatus.choices]
        latest_done = latest_done_run(runs)
        context["latest_done"] = latest_done
        typed = typed_results(latest_done)
        evidence = run_evidence(latest_done, typed, [m.key for m in HEADLINE_METRICS])
        context["headline_cards"] = headline_cards(typed, evidence)
        context["latest_outdated"] = results_outdated(latest_done)
        team_id = self.object.project.team_id
        context["can_edit"] = user_has_role(self.request.user, team_id, Role.EDITOR)
        context["is_owner"] = user_has_role(self.request.user, team_id, Role.OWNER)
        context.update(design_sheet_forms(self.object))
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
            cost_change=cost_change(before_run, after_run),
            before_run=before_run,
            after_run=after_run,
            can_edit=user_has_role(self.request.user, self.object.project.team_id, Role.EDITOR),
        )
        return context
