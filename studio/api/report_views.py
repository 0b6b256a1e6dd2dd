"""Report endpoints: list and read a report's snapshot summary, download its PDF (token auth,
team scoping as the rest of the API)."""

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import mixins, serializers
from rest_framework.decorators import action

from studio.api.scoping import TeamScopedViewSet
from studio.reports.models import Report
from studio.reports.report_views import pdf_response
from studio.reports.roadmap import roadmap_for_api
from studio.reports.selectors import reports_visible_to


class ReportSerializer(serializers.ModelSerializer):
    revisions = serializers.SerializerMethodField()
    pdf_url = serializers.SerializerMethodField()

    class Meta:
        model = Report
        fields = [
            "id",
            "project",
            "title",
            "summary",
            "created_at",
            "revisions",
            "pdf_status",
            "pdf_pages",
            "pdf_url",
        ]

    def get_revisions(self, report) -> list[dict]:
        keys = ("design_id", "design_name", "revision_id", "spec_hash", "engine_version", "run_id")
        return [{k: c.get(k) for k in keys} for c in report.covers]

    def get_pdf_url(self, report) -> str | None:
        if report.pdf_status != "done":
            return None
        return f"/api/reports/{report.pk}/pdf/"


class ReportDetailSerializer(ReportSerializer):
    """One report: the list's fields and the roadmap (phases, costs with what is unpriced)."""

    roadmap = serializers.SerializerMethodField()

    class Meta(ReportSerializer.Meta):
        fields = [*ReportSerializer.Meta.fields, "roadmap", "roadmap_error"]

    def get_roadmap(self, report) -> dict | None:
        return roadmap_for_api(report.roadmap)


class ReportViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, TeamScopedViewSet):
    scope_selector = reports_visible_to
    serializer_class = ReportSerializer
    filterset_fields = ["project"]

    def get_serializer_class(self):
        return ReportDetailSerializer if self.action == "retrieve" else ReportSerializer

    @extend_schema(responses={(200, "application/pdf"): OpenApiResponse(description="the PDF")})
    @action(detail=True, methods=["get"])
    def pdf(self, request, pk=None, format=None):  # format: the DRF suffix (pdf.json)
        return pdf_response(self.get_object())
