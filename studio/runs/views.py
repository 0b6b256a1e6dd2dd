"""Run pages: start an evaluation, watch its progress, read its results.

A finished run never changes, so what its results page shows is built once per web process:
the rendered results (one variant for editors, one for viewers; the CSRF token is put in per
request) and the figures' JSON, which the page loads from its own immutable URL so that the
HTML stays small and a browser keeps the charts. The team scoping (the queryset) and the role
check run on every request, before any cache is read."""

import gzip
import hashlib
import json

from django.contrib import messages
from django.http import Http404, HttpResponse, HttpResponseNotModified
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views import View
from django.views.generic import DetailView

from studio.accounts.models import Role
from studio.accounts.scoping import ScopedActionView, TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.core.process_cache import ProcessCache
from studio.designs.selectors import designs_visible_to
from studio.runs import services
from studio.runs.charts import CHARTS_VERSION
from studio.runs.evidence import run_evidence
from studio.runs.figures import run_figure_sections
from studio.runs.headline import HEADLINE_METRICS, headline_cards
from studio.runs.sections import section_blocks
from studio.runs.selectors import (
    finished_run_key,
    results_outdated,
    runs_visible_to,
    typed_results,
)
from studio.runs.tables import available_tables

# Two variants (editor, viewer) of the last 64 runs read, ~100 kB each, per web process.
RESULTS_BODIES = ProcessCache("rendered results of finished runs", max_entries=128)
# The figures' JSON of the last 64 runs read (~200 kB each, and its gzip).
FIGURES_JSON = ProcessCache("figures JSON of finished runs", max_entries=64)
# Stands for the CSRF token in a cached rendering; each response gets its own request's token
# (one user's token must never reach another).
CSRF_PLACEHOLDER = "csrf0token0of0this0request"
# The figures' URL names its content, so a browser may keep it for good (private: team data).
FIGURES_CACHE_CONTROL = "private, max-age=31536000, immutable"


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
        "headline_cards": headline_cards(
            results, run_evidence(run, results, [m.key for m in HEADLINE_METRICS])
        ),
    }


def figures_key(run) -> str:
    """Names a finished run's figures: changes with the run and with the chart code."""
    return hashlib.sha256(f"{finished_run_key(run)}|{CHARTS_VERSION}".encode()).hexdigest()[:20]


def results_body(request, run, can_edit: bool) -> str:
    """The rendered results of a finished run with current results (built on the first read
    in this process). The caller has checked that the user may see the run."""
    key = (finished_run_key(run), CHARTS_VERSION, can_edit)

    def render() -> str:
        context = {**results_context(run), "run": run, "can_edit": can_edit}
        context["figures_url"] = reverse_figures(run)
        return render_to_string(
            "runs/_results_body.html", {**context, "csrf_token": CSRF_PLACEHOLDER}
        )

    html = RESULTS_BODIES.get_or_build(key, render)
    # Safe: the template engine escaped the HTML; the token is letters and digits.
    return mark_safe(html.replace(CSRF_PLACEHOLDER, get_token(request)))


def reverse_figures(run) -> str:
    return reverse("run-figures", args=[run.pk, figures_key(run)])


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

    def safely_get_queryset(self, queryset):
        # A finished run's results are read from the process cache; loaded only on a miss.
        return queryset.defer("results")

    def get_template_names(self):
        if self.request.htmx:
            return ["runs/_run_status.html"]
        return ["runs/run_detail.html"]

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        run = self.object
        can_edit = user_has_role(
            self.request.user, run.revision.design.project.team_id, Role.EDITOR
        )
        results = typed_results(run)
        context["results"] = results
        context["results_outdated"] = results_outdated(run)
        context["results_body"] = results_body(self.request, run, can_edit) if results else ""
        context["can_edit"] = can_edit
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


class RunFiguresView(TeamScopedObjectMixin, View):
    """GET: a finished run's figures as JSON ({figure id: Plotly spec}), at a URL that names
    its content (`figures_key`): sent once per browser (immutable, ETag), gzipped when asked."""

    token_readable = True  # the figures' JSON is a download too (download_auth)
    scope_selector = runs_visible_to
    team_id_path = "revision.design.project.team_id"

    def safely_get_queryset(self, queryset):
        return queryset.defer("results")  # read from the process cache; loaded on a miss

    def get(self, request, pk, key):
        run = get_object_or_404(self.get_queryset(), pk=pk)
        if finished_run_key(run) is None or typed_results(run) is None or key != figures_key(run):
            raise Http404("No such figures (the run is not finished, or they were redrawn)")
        etag = f'"{key}"'
        if etag in request.headers.get("If-None-Match", ""):
            response = HttpResponseNotModified()
        else:
            raw, zipped = FIGURES_JSON.get_or_build((key, run.pk), lambda: _figures_json(run))
            use_gzip = "gzip" in request.headers.get("Accept-Encoding", "")
            response = HttpResponse(zipped if use_gzip else raw, content_type="application/json")
            if use_gzip:
                response["Content-Encoding"] = "gzip"
        response["ETag"] = etag
        response["Cache-Control"] = FIGURES_CACHE_CONTROL
        response["Vary"] = "Accept-Encoding, Cookie, Authorization"
        return response


def _figures_json(run) -> tuple[bytes, bytes]:
    sections = run_figure_sections(run, typed_results(run))
    figures = {f["id"]: f["spec"] for section in sections for f in section["figures"]}
    raw = json.dumps(figures, separators=(",", ":")).encode()
    return raw, gzip.compress(raw, compresslevel=6)
