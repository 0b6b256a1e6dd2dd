from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from studio.api import (
    report_views,
    review_views,
    sheet_views,
    sweep_views,
    validation_views,
    views,
)
from studio.core.inputs import IdConverter

router = DefaultRouter()
router.register("projects", views.ProjectViewSet, basename="api-project")
router.register("designs", views.DesignViewSet, basename="api-design")
router.register("runs", views.EngineRunViewSet, basename="api-run")
router.register("reports", report_views.ReportViewSet, basename="api-report")
router.register("sweeps", sweep_views.SweepViewSet, basename="api-sweep")
router.register("reviews", review_views.ReviewViewSet, basename="api-review")
router.register("review-comments", review_views.ReviewCommentViewSet, basename="api-review-comment")
router.register("catalog-entries", views.TeamCatalogEntryViewSet, basename="api-catalog-entry")

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("catalog/", views.CatalogView.as_view(), name="api-catalog"),
    path("spec-schema/", views.SpecSchemaView.as_view(), name="api-spec-schema"),
    # Spreadsheet imports (studio/api/sheet_views.py). The id pattern, not the converter: an id
    # out of range reaches the view and gets the API's JSON 404, not the HTML page.
    re_path(
        rf"^designs/(?P<pk>{IdConverter.regex})/spec-patch/$",
        sheet_views.DesignSpecPatchApiView.as_view(),
        name="api-design-spec-patch",
    ),
    re_path(
        rf"^designs/(?P<pk>{IdConverter.regex})/variants/$",
        sheet_views.DesignVariantsApiView.as_view(),
        name="api-design-variants",
    ),
    path("validation/", validation_views.ValidationView.as_view(), name="api-validation"),
    *router.urls,
]
