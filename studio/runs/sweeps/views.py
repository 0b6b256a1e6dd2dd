"""Sweep pages: define a sweep on a design, watch it (htmx polling), read its results, cancel
it, save any variant as a revision, download every variant as CSV / XLSX."""

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.generic import DetailView

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView, TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.core.inputs import parse_int
from studio.core.process_cache import ProcessCache
from studio.designs.selectors import designs_visible_to
from studio.runs.sweeps import services, tables
from studio.runs.sweeps.exports import ExportTooLarge, sweep_csv_response, sweep_xlsx_response
from studio.runs.sweeps.figures import sweep_figures
from studio.runs.sweeps.forms import SweepForm, sweepable_paths
from studio.runs.sweeps.selectors import sweeps_of_design, sweeps_visible_to

SWEEP_TEAM = "design.project.team_id"
# A finished sweep's summary never changes: its charts and tables are built once per web process
# (~1 s for a million variants' sample and front).
RESULTS = ProcessCache("charts and tables of finished sweeps", max_entries=32)


class SweepCreateView(TeamScopedObjectMixin, DetailView):
    """GET: the form (and the design's sweeps); POST: create the sweep (editors)."""

    scope_selector = designs_visible_to
    team_id_path = "project.team_id"
    template_name = "runs/sweeps/sweep_new.html"
    context_object_name = "design"

    def _form(self, design, data=None):
        revision = design.latest_revision
        paths = sweepable_paths(revision.spec) if revision else []
        return SweepForm(data, paths=paths)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        design = self.object
        context.setdefault("form", self._form(design))
        context["sweeps"] = sweeps_of_design(design)[:20]
        context["can_edit"] = user_has_role(self.request.user, design.project.team_id, Role.EDITOR)
        return context

    def post(self, request, *args, **kwargs):
        design = self.object = self.get_object()
        self.require_role(design, Role.EDITOR)
        form = self._form(design, request.POST)
        if form.is_valid():
            try:
                sweep = services.sweep_create(
                    actor=request.user,
                    design=design,
                    definition=form.cleaned_data["definition"],
                    name=form.cleaned_data["name"],
                )
            except services.SweepInvalid as exc:
                form.add_service_errors(exc.errors)
            else:
                return redirect("sweep-detail", pk=sweep.pk)
        return self.render_to_response(self.get_context_data(form=form), status=400)


class SweepDetailView(TeamScopedObjectMixin, DetailView):
    scope_selector = sweeps_visible_to
    team_id_path = SWEEP_TEAM
    context_object_name = "sweep"

    def get_template_names(self):
        if self.request.htmx:
            return ["runs/sweeps/_sweep_status.html"]
        return ["runs/sweeps/sweep_detail.html"]

    def render_to_response(self, context, **kwargs):
        response = super().render_to_response(context, **kwargs)
        if self.request.htmx and not self.object.is_active:
            response["HX-Refresh"] = "true"  # finished: load the page with its results
        return response

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        sweep = self.object
        context["can_edit"] = user_has_role(
            self.request.user, sweep.design.project.team_id, Role.EDITOR
        )
        context["total_text"] = f"{sweep.total_variants:,}"
        context["done_text"] = f"{sweep.variants_done:,}"
        summary = sweep.summary
        if summary and not self.request.htmx:
            key = (sweep.pk, sweep.finished_at)
            context.update(RESULTS.get_or_build(key, lambda: results_context(summary)))
        return context


def results_context(summary: dict) -> dict:
    return {
        "summary": summary,
        "figures": sweep_figures(summary),
        "best_rows": tables.best_rows(summary),
        "metric_headers": tables.metric_headers(),
        "front_rows": tables.front_rows(summary),
        "front_headers": tables.front_headers(summary),
        "infeasible_rows": tables.infeasible_rows(summary),
        "count_cards": tables.count_cards(summary),
    }


class SweepCancelView(ScopedActionView):
    scope_selector = sweeps_visible_to
    team_id_path = SWEEP_TEAM

    def post(self, request, *args, **kwargs):
        sweep = self.get_object()
        self.require_role(sweep, Role.EDITOR)
        if services.sweep_cancel(actor=request.user, sweep=sweep):
            messages.info(request, "Sweep cancelled: chunks not yet started are skipped.")
        return redirect("sweep-detail", pk=sweep.pk)


class SweepSaveVariantView(ScopedActionView):
    """POST `index`: the variant becomes the design's new revision."""

    scope_selector = sweeps_visible_to
    team_id_path = SWEEP_TEAM

    def post(self, request, *args, **kwargs):
        sweep = self.get_object()
        self.require_role(sweep, Role.EDITOR)
        index = parse_int(request.POST.get("index"), maximum=sweep.total_variants - 1)
        if index is None:
            return render(
                request,
                "400.html",
                {"problem": f"index: a variant number from 0 to {sweep.total_variants - 1}"},
                status=400,
            )
        try:
            revision = services.sweep_save_variant(actor=request.user, sweep=sweep, index=index)
        except services.SweepInvalid as exc:
            return render(request, "400.html", {"problem": str(exc)}, status=400)
        except services.design_services.DesignSpecInvalid as exc:
            return render(request, "400.html", {"problem": str(exc)}, status=400)
        messages.success(
            request, f"Variant {index} saved as revision {revision.number} of {sweep.design.name}."
        )
        return redirect("design-detail", pk=sweep.design_id)


class SweepExportView(TeamScopedObjectMixin, DetailView):
    token_readable = True  # spreadsheets and scripts fetch every variant with an API token
    scope_selector = sweeps_visible_to
    team_id_path = SWEEP_TEAM

    def get(self, request, pk, fmt):
        sweep = get_object_or_404(self.get_queryset(), pk=pk)
        if sweep.status != "done":
            return render(
                request, "400.html", {"problem": "The sweep has not finished yet."}, status=400
            )
        try:
            if fmt == "xlsx":
                return sweep_xlsx_response(sweep)
        except ExportTooLarge as exc:
            return render(request, "400.html", {"problem": str(exc)}, status=400)
        return sweep_csv_response(sweep)
