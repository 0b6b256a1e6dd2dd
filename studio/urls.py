from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from studio.catalog import views as catalog_views
from studio.core.docs import spec_docs
from studio.core.views import healthz
from studio.designs import views as design_views
from studio.runs import views as run_views

urlpatterns = [
    path("", design_views.project_list, name="project-list"),
    path("projects/<int:pk>/", design_views.ProjectDetailView.as_view(), name="project-detail"),
    path("designs/<int:pk>/", design_views.DesignDetailView.as_view(), name="design-detail"),
    path(
        "designs/<int:pk>/evaluate/",
        run_views.DesignEvaluateView.as_view(),
        name="design-evaluate",
    ),
    path("runs/<int:pk>/", run_views.RunDetailView.as_view(), name="run-detail"),
    path("catalog/", catalog_views.catalog_page, name="catalog"),
    path("docs/spec/", spec_docs, name="spec-docs"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path(
        "accounts/password/",
        auth_views.PasswordChangeView.as_view(success_url="/"),
        name="password_change",
    ),
    path("api/", include("studio.api.urls")),
    path("admin/", admin.site.urls),
    path("healthz", healthz, name="healthz"),
]
