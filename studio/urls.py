from django.contrib import admin
from django.urls import include, path, re_path, register_converter

from studio.accounts import team_views
from studio.api import token_views
from studio.catalog import views as catalog_views
from studio.core.docs import spec_docs
from studio.core.inputs import IdConverter
from studio.core.views import healthz
from studio.designs import (
    audit_views,
    editor_views,
    history_views,
    lifecycle_views,
    sheet_views,
)
from studio.designs import views as project_views
from studio.reports import export_views, network_export, physical_export, validation_views
from studio.reports import report_views as report_pages
from studio.reports import views as report_views
from studio.runs import design_views, risk_views
from studio.runs import views as run_views
from studio.runs.sweeps import views as sweep_views

# `<id:pk>`: ASCII digits within bigint; `²`, `٣` or 20 digits do not route (404).
register_converter(IdConverter, "id")

urlpatterns = [
    path("", project_views.project_list, name="project-list"),
    path("projects/<id:pk>/", design_views.ProjectDetailView.as_view(), name="project-detail"),
    path(
        "projects/<id:pk>/designs/from-example/",
        project_views.DesignFromExampleView.as_view(),
        name="design-create-example",
    ),
    path(
        "projects/<id:pk>/designs/from-system/",
        project_views.DesignFromSystemView.as_view(),
        name="design-create-system",
    ),
    path(
        "projects/<id:pk>/designs/blank/",
        project_views.DesignBlankView.as_view(),
        name="design-create-blank",
    ),
    path(
        "projects/<id:pk>/designs/import/",
        project_views.DesignImportView.as_view(),
        name="design-create-import",
    ),
    path(
        "projects/<id:pk>/history/",
        audit_views.ProjectHistoryView.as_view(),
        name="project-history",
    ),
    path(
        "projects/<id:pk>/reports/",
        report_pages.ProjectReportsView.as_view(),
        name="project-reports",
    ),
    path("reports/<id:pk>/", report_pages.ReportDetailView.as_view(), name="report-detail"),
    path("reports/<id:pk>/report.pdf", report_pages.ReportPdfView.as_view(), name="report-pdf"),
    path(
        "reports/<id:pk>/rebuild-pdf/",
        report_pages.ReportRebuildPdfView.as_view(),
        name="report-rebuild-pdf",
    ),
    path(
        "projects/<id:pk>/rename/",
        lifecycle_views.ProjectRenameView.as_view(),
        name="project-rename",
    ),
    path(
        "projects/<id:pk>/archive/",
        lifecycle_views.ProjectArchiveView.as_view(),
        name="project-archive",
    ),
    path(
        "projects/<id:pk>/restore/",
        lifecycle_views.ProjectRestoreView.as_view(),
        name="project-restore",
    ),
    path(
        "projects/<id:pk>/delete/",
        lifecycle_views.ProjectDeleteView.as_view(),
        name="project-delete",
    ),
    path(
        "designs/<id:pk>/rename/",
        lifecycle_views.DesignRenameView.as_view(),
        name="design-rename",
    ),
    path(
        "designs/<id:pk>/archive/",
        lifecycle_views.DesignArchiveView.as_view(),
        name="design-archive",
    ),
    path(
        "designs/<id:pk>/restore/",
        lifecycle_views.DesignRestoreView.as_view(),
        name="design-restore",
    ),
    path(
        "designs/<id:pk>/delete/",
        lifecycle_views.DesignDeleteView.as_view(),
        name="design-delete",
    ),
    path(
        "designs/<id:pk>/discard-draft/",
        lifecycle_views.DesignDiscardDraftView.as_view(),
        name="design-discard-draft",
    ),
    path("designs/<id:pk>/", design_views.DesignDetailView.as_view(), name="design-detail"),
    path("designs/<id:pk>/diff/", design_views.RevisionDiffView.as_view(), name="design-diff"),
    path("designs/<id:pk>/revert/", history_views.DesignRevertView.as_view(), name="design-revert"),
    path(
        "designs/<id:pk>/risks/accept/",
        risk_views.DesignAcceptRiskView.as_view(),
        name="design-accept-risk",
    ),
    path("designs/<id:pk>/clone/", history_views.DesignCloneView.as_view(), name="design-clone"),
    path(
        "designs/<id:pk>/spec.json",
        project_views.design_spec_json,
        name="design-spec-json",
    ),
    path(
        "designs/<id:pk>/spec-patch/",
        sheet_views.DesignSpecPatchView.as_view(),
        name="design-spec-patch",
    ),
    path(
        "designs/<id:pk>/variants/",
        sheet_views.DesignVariantsView.as_view(),
        name="design-variants",
    ),
    re_path(
        r"^exports/designs/(?P<pk>[0-9]{1,19})/spec\.(?P<fmt>csv|xlsx)$",
        export_views.design_spec_export,
        name="export-design-spec",
    ),
    path("designs/<id:pk>/edit/", editor_views.DesignEditorView.as_view(), name="design-editor"),
    path(
        "designs/<id:pk>/edit/validate/",
        editor_views.DesignEditorValidateView.as_view(),
        name="design-editor-validate",
    ),
    path(
        "designs/<id:pk>/evaluate/",
        run_views.DesignEvaluateView.as_view(),
        name="design-evaluate",
    ),
    path("runs/<id:pk>/", run_views.RunDetailView.as_view(), name="run-detail"),
    path("designs/<id:pk>/sweeps/", sweep_views.SweepCreateView.as_view(), name="design-sweeps"),
    path("sweeps/<id:pk>/", sweep_views.SweepDetailView.as_view(), name="sweep-detail"),
    path("sweeps/<id:pk>/cancel/", sweep_views.SweepCancelView.as_view(), name="sweep-cancel"),
    path(
        "sweeps/<id:pk>/save-variant/",
        sweep_views.SweepSaveVariantView.as_view(),
        name="sweep-save-variant",
    ),
    re_path(
        r"^sweeps/(?P<pk>[0-9]{1,19})/variants\.(?P<fmt>csv|xlsx)$",
        sweep_views.SweepExportView.as_view(),
        name="sweep-export",
    ),
    path("runs/<id:pk>/retry/", run_views.RunRetryView.as_view(), name="run-retry"),
    path(
        "runs/<id:pk>/figures/<slug:key>.json",
        run_views.RunFiguresView.as_view(),
        name="run-figures",
    ),
    path(
        "runs/<id:pk>/network-configs.zip",
        network_export.run_network_configs,
        name="run-network-configs",
    ),
    path(
        "runs/<id:pk>/cable-schedule/",
        physical_export.run_cable_schedule_page,
        name="run-cable-schedule-page",
    ),
    path("runs/<id:pk>/dcim.zip", physical_export.run_dcim_export, name="run-dcim-export"),
    path("api/runs/<id:pk>/dcim.zip", physical_export.run_dcim_export, name="api-run-dcim-export"),
    re_path(
        r"^runs/(?P<pk>[0-9]{1,19})/cable-schedule\.(?P<fmt>csv|xlsx)$",
        physical_export.run_cable_schedule,
        name="run-cable-schedule",
    ),
    re_path(
        r"^api/runs/(?P<pk>[0-9]{1,19})/cable-schedule\.(?P<fmt>csv|xlsx)$",
        physical_export.run_cable_schedule,
        name="api-run-cable-schedule",
    ),
    path(
        "api/runs/<id:pk>/network-configs.zip",
        network_export.run_network_configs,
        name="api-run-network-configs",
    ),
    re_path(
        r"^exports/projects/(?P<pk>[0-9]{1,19})/designs\.(?P<fmt>csv|xlsx)$",
        export_views.project_designs_export,
        name="export-project-designs",
    ),
    re_path(
        r"^exports/runs/(?P<pk>[0-9]{1,19})/(?P<table>[a-z-]+)\.(?P<fmt>csv|xlsx)$",
        export_views.run_table_export,
        name="export-run-table",
    ),
    path("account/tokens/", token_views.tokens_page, name="tokens"),
    path("teams/", team_views.team_list, name="teams"),
    path("teams/<id:pk>/", team_views.team_detail, name="team-detail"),
    path("teams/<id:pk>/invitations/", team_views.team_invite, name="team-invite"),
    path(
        "teams/<id:pk>/invitations/<id:invitation_pk>/revoke/",
        team_views.team_invitation_revoke,
        name="team-invitation-revoke",
    ),
    path("compare/", report_views.compare, name="compare"),
    path("catalog/", catalog_views.catalog_page, name="catalog"),
    path("validation/", validation_views.validation_page, name="validation"),
    path("docs/spec/", spec_docs, name="spec-docs"),
    path("", include("studio.reviews.urls")),
    path("accounts/", include("studio.accounts.urls")),
    path("api/", include("studio.api.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
