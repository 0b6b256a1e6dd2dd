"""Report pages: a project's reports, making one, reading one, downloading its PDF."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.views.generic import DetailView

from studio.accounts.models import Role
from studio.accounts.scoping import TeamScopedObjectMixin
from studio.accounts.selectors import user_has_role
from studio.designs.selectors import projects_visible_to
from studio.reports import services
from studio.reports.document import report_context
from studio.reports.forms import ReportCreateForm
from studio.reports.models import PdfStatus, Report
from studio.reports.selectors import reports_visible_to
from studio.runs.selectors import latest_done_run, runs_visible_to


class ProjectReportsView(TeamScopedObjectMixin, DetailView):
    """GET: the project's reports and (for editors) the form; POST: make a report."""

    scope_selector = projects_visible_to
    template_name = "reports/report_list.html"
    context_object_name = "project"

    def _form(self, data=None):
        return ReportCreateForm(data, designs_qs=self.object.designs.all())

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        runs = runs_visible_to(self.request.user)
        context["reports"] = self.object.reports.select_related("author").defer("pdf")
        context["form"] = kwargs.get("form") or self._form()
        context["design_runs"] = [
            {"design": d, "run": latest_done_run(runs.filter(revision__design=d))}
            for d in self.object.designs.all()
        ]
        context["can_edit"] = user_has_role(self.request.user, self.object.team_id, Role.EDITOR)
        return context

    def post(self, request, *args, **kwargs):
        self.object = self.get_object()
        self.require_role(self.object, Role.EDITOR)
        form = self._form(request.POST)
        if form.is_valid():
            try:
                report = services.report_create(
                    actor=request.user,
                    project=self.object,
                    title=form.cleaned_data["title"],
                    summary=form.cleaned_data["summary"],
                    designs=form.cleaned_data["designs"],
                    baseline=form.cleaned_data["baseline"],
                )
            except services.ReportInvalid as exc:
                form.add_error(exc.field, str(exc))
            else:
                messages.success(request, "Report made; its PDF is being built.")
                return redirect("report-detail", pk=report.pk)
        return self.render_to_response(self.get_context_data(form=form), status=400)


class ReportDetailView(TeamScopedObjectMixin, DetailView):
    scope_selector = reports_visible_to
    team_id_path = "project.team_id"
    context_object_name = "report"

    def get_template_names(self):
        if self.request.htmx:
            return ["reports/_pdf_status.html"]
        return ["reports/report_detail.html"]

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        if not self.request.htmx:
            context.update(report_context(self.object))
        context["can_edit"] = user_has_role(
            self.request.user, self.object.project.team_id, Role.EDITOR
        )
        return context


class ReportRebuildPdfView(TeamScopedObjectMixin, DetailView):
    """POST only: build the PDF again (after a failure)."""

    scope_selector = reports_visible_to
    team_id_path = "project.team_id"
    http_method_names = ["post", "options"]

    def post(self, request, *args, **kwargs):
        report = self.get_object()
        self.require_role(report, Role.EDITOR)
        services.report_pdf_enqueue(report)
        return redirect("report-detail", pk=report.pk)


def pdf_response(report: Report) -> HttpResponse:
    pdf = Report.objects.filter(pk=report.pk, pdf_status=PdfStatus.DONE).values_list(
        "pdf", flat=True
    )
    data = pdf.first()
    if not data:
        raise Http404("The PDF of this report is not ready")
    response = HttpResponse(bytes(data), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="report-{report.pk}.pdf"'
    return response


class ReportPdfView(TeamScopedObjectMixin, DetailView):
    token_readable = True  # a script may fetch the PDF with an API token (download_auth)
    scope_selector = reports_visible_to
    team_id_path = "project.team_id"

    def get(self, request, *args, **kwargs):
        return pdf_response(self.get_object())
